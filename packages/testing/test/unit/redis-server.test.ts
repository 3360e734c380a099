// ensureRedisServer: a test run provides its own redis-server (found, or installed with apt-get as root), or names
// the one command to run.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureRedisServer, findOnPath } from '../../src/redis-server';

function executable(dir: string, name: string): string {
  const file = join(dir, name);
  writeFileSync(file, '#!/bin/sh\nexit 0\n');
  chmodSync(file, 0o755);
  return file;
}

describe('ensureRedisServer', () => {
  let bin: string;
  beforeEach(() => {
    bin = mkdtempSync(join(tmpdir(), 'hookwise-redis-path-'));
  });
  afterEach(() => rmSync(bin, { recursive: true, force: true }));

  it('uses the redis-server found on PATH and installs nothing', () => {
    const found = executable(bin, 'redis-server');
    const run = jest.fn();
    expect(ensureRedisServer({ path: bin, isRoot: true, run })).toEqual({ ok: true, binary: found, installed: false });
    expect(run).not.toHaveBeenCalled();
  });

  it('as root with apt-get: runs apt-get update, then installs redis-server, and finds it', () => {
    const aptGet = executable(bin, 'apt-get');
    const calls: string[][] = [];
    const run = (command: string, args: string[]) => {
      calls.push([command, ...args]);
      if (args[0] === 'install') executable(bin, 'redis-server');
      return { status: 0, output: '' };
    };
    const lines: string[] = [];
    const result = ensureRedisServer({ path: bin, isRoot: true, run, log: (line) => lines.push(line) });
    expect(result).toEqual({ ok: true, binary: join(bin, 'redis-server'), installed: true });
    expect(calls).toEqual([
      [aptGet, 'update', '-qq'],
      [aptGet, 'install', '-y', '-qq', 'redis-server'],
    ]);
    expect(lines.join('\n')).toContain('installing it with apt-get');
  });

  it('without root: stops with the one command to run, and runs nothing', () => {
    executable(bin, 'apt-get');
    const run = jest.fn();
    const result = ensureRedisServer({ path: bin, isRoot: false, run });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain('run `sudo apt-get install -y redis-server`');
    expect(run).not.toHaveBeenCalled();
  });

  it('when apt-get fails: says why (its last lines) and what to run', () => {
    executable(bin, 'apt-get');
    const run = (_command: string, args: string[]) =>
      args[0] === 'update' ? { status: 0, output: '' } : { status: 100, output: 'E: Unable to locate package redis-server\n' };
    const result = ensureRedisServer({ path: bin, isRoot: true, run, log: () => undefined });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(
      /could not install redis-server with apt-get \(exit 100\): E: Unable to locate package redis-server\. Install it yourself: `sudo apt-get install -y redis-server`/,
    );
  });

  it('findOnPath skips files that are not executable', () => {
    writeFileSync(join(bin, 'redis-server'), 'not a program');
    expect(findOnPath('redis-server', bin)).toBeUndefined();
  });
});
