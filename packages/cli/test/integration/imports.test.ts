// The CLI assembles gateways through @hookwise/gateway (openGateway); the HTTP host is for `gateway run` alone.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const src = join(TEST_DIR, '..', 'src');

it('imports @hookwise/server only in commands/gateway/run.ts', () => {
  const importers = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .filter((file) => /['"]@hookwise\/server['"]/.test(readFileSync(join(src, file), 'utf8')))
    .map((file) => relative(src, join(src, file)));
  expect(importers).toEqual([join('commands', 'gateway', 'run.ts')]);
});
