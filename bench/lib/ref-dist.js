// Preloaded (`node --require`) into a gateway the bench starts as a reference build: every file of
// packages/gateway/dist is loaded from BENCH_REF_GATEWAY_DIST instead (the dist of a copy of the package made
// from an earlier build, package.json beside it, and a node_modules link to the tree's above it so that its own
// requires resolve), so that an earlier build and this one can take
// turns in one run. The rest of the tree (core, stores, server, cli) is this build's.
'use strict';
const Module = require('node:module');
const path = require('node:path');

const packages = path.join(__dirname, '..', '..', 'packages');
// BENCH_REF_SERVER_DIST does the same for packages/server/dist (the access log lives there), BENCH_REF_KIT_DIST
// for packages/kit/dist (the sources' signature checks) and BENCH_REF_STORE_SQLITE_DIST for the SQLite store.
const swaps = [
  ['gateway', process.env.BENCH_REF_GATEWAY_DIST],
  ['server', process.env.BENCH_REF_SERVER_DIST],
  ['kit', process.env.BENCH_REF_KIT_DIST],
  ['store-sqlite', process.env.BENCH_REF_STORE_SQLITE_DIST],
]
  .filter(([, dir]) => dir)
  .map(([name, dir]) => [path.join(packages, name, 'dist') + path.sep, path.resolve(dir) + path.sep]);
const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveToReference(...args) {
  const file = resolve.apply(this, args);
  for (const [from, to] of swaps) if (file.startsWith(from)) return to + file.slice(from.length);
  return file;
};
