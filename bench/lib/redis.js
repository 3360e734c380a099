// The bench's own redis-server: a free 127.0.0.1 port, a temporary working directory, no persistence
// (`--save '' --appendonly no`), stopped by the bench. Its CPU time is read from /proc like the servers under test,
// so that the Redis store's rows can show what the gateway spends and what redis-server spends per request.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { freePort, track, sleep, startGateway } = require('./servers');

/** The redis-server binary on PATH and its version, or undefined when it is not installed. */
function redisBinary() {
  const bin = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();
  if (!bin) return undefined;
  const version = (/v=(\S+)/.exec(spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout) || [])[1] ?? 'unknown';
  return { bin, version };
}

/** The line the bench prints when the Redis rows cannot run. */
const REDIS_MISSING = 'redis-server is not installed: the Redis store rows are skipped (Debian/Ubuntu: `sudo apt-get install -y redis-server`)';

/** Starts redis-server; resolves once it answers PING. The result tracks its CPU like a server under test. */
async function startRedis() {
  const found = redisBinary();
  if (!found) throw new Error(REDIS_MISSING);
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-redis-'));
  const child = spawn(found.bin, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const redis = track(`redis-server ${found.version}`, child, {
    port,
    url: `redis://127.0.0.1:${port}`,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}:\n${redis.output()}`);
    if (redisCli(port, ['PING']) === 'PONG') return redis;
    await sleep(50);
  }
  await redis.stop();
  throw new Error(`redis-server did not answer PING on port ${port} within 10 s:\n${redis.output()}`);
}

/** One redis-cli command against the bench's server; its output trimmed, or '' when it failed. */
function redisCli(port, args) {
  const result = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8', timeout: 10_000 });
  return result.status === 0 ? result.stdout.trim() : '';
}

/** Commands redis-server has run so far (INFO stats total_commands_processed), NaN when unknown. */
function commandsProcessed(port) {
  return Number((/total_commands_processed:(\d+)/.exec(redisCli(port, ['INFO', 'stats'])) || [])[1] ?? NaN);
}

/**
 * A gateway on the Redis store with a redis-server of its own (fresh, empty), stopped with it. The redis-server is
 * the gateway's companion: load runs report its CPU per request apart from the gateway's.
 */
async function startGatewayOnOwnRedis(options = {}) {
  const redis = await startRedis();
  try {
    const gateway = await startGateway({ ...options, store: 'redis', storeUrl: redis.url, companions: [redis] });
    const stopGateway = gateway.stop;
    return {
      ...gateway,
      async stop() {
        await stopGateway();
        await redis.stop();
      },
    };
  } catch (err) {
    await redis.stop();
    throw err;
  }
}

module.exports = { redisBinary, startRedis, startGatewayOnOwnRedis, redisCli, commandsProcessed, REDIS_MISSING };
