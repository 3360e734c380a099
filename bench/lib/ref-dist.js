// Preloaded (`node --require`) into a gateway the bench starts as a reference build: every file of
// packages/gateway/dist is loaded from BENCH_REF_GATEWAY_DIST instead (the dist of a copy of the package made
// from an earlier build, package.json beside it, and a node_modules link to the tree's above it so that its own
// requires resolve), so that an earlier build and this one can take
// turns in one run. The rest of the tree (core, stores, server, cli) is this build's.
'use strict';
const Module = require('node:module');
const path = require('node:path');

const from = path.join(__dirname, '..', '..', 'packages', 'gateway', 'dist') + path.sep;
const to = path.resolve(process.env.BENCH_REF_GATEWAY_DIST) + path.sep;
const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveToReference(...args) {
  const file = resolve.apply(this, args);
  return file.startsWith(from) ? to + file.slice(from.length) : file;
};
