// Starts and stops the servers under test as child processes on 127.0.0.1: the real gateway (production build,
// `hookwise gateway run`), the bare node:http baseline and, when installed, adnanh/webhook.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { SECRET } = require('./payload');

const ROOT = path.resolve(__dirname, '..', '..');
const PROBE = path.join(__dirname, 'probe.js');
const PLUGIN = path.join(__dirname, 'bench-plugin.js');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const CLOCK_TICKS = (() => {
  try {
    return Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  } catch {
    return 100;
  }
})();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function get(url) {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(1000, () => req.destroy());
  });
}

async function waitReady(url, child, output, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output()}`);
    const status = await get(url);
    if (status > 0) return;
    await sleep(100);
  }
  throw new Error(`server not ready at ${url} after ${timeoutMs} ms:\n${output()}`);
}

/** Wraps a child process: output capture, memory and probe reports, stop. */
function track(name, child, extra = {}) {
  let out = '';
  const keep = (d) => {
    out += d;
    if (out.length > 20_000) out = out.slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    name,
    pid: child.pid,
    child,
    output: () => out,
    ...extra,
    /** Resets the peak RSS (VmHWM) so the next reading covers one run only. */
    resetPeak() {
      try {
        writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
        return true;
      } catch {
        return false;
      }
    },
    /** { rss, hwm } in bytes from /proc/<pid>/status. */
    memory() {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = (key) => Number((new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status) || [])[1] || 0) * 1024;
        return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
      } catch {
        return { rss: 0, hwm: 0 };
      }
    },
    /** CPU seconds used so far by the process and its waited-for children (utime+stime+cutime+cstime). */
    cpuSeconds() {
      try {
        const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // After the command name: state is field 3, so utime..cstime (fields 14-17) are at 11..14 here.
        return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
      } catch {
        return NaN;
      }
    },
    /** Asks the preloaded probe (and the bench plugin) for their reports since the last call. */
    async report() {
      if (!extra.probeFile) return undefined;
      for (const f of [extra.probeFile, extra.sinkFile]) if (f) rmSync(f, { force: true });
      child.kill('SIGUSR2');
      const until = Date.now() + 5000;
      const read = (f) => (f && existsSync(f) ? JSON.parse(readFileSync(f, 'utf8')) : undefined);
      while (Date.now() < until) {
        const probe = read(extra.probeFile);
        const sink = read(extra.sinkFile);
        if (probe && (!extra.sinkFile || sink)) return { probe, sink };
        await sleep(20);
      }
      return { probe: read(extra.probeFile), sink: read(extra.sinkFile) };
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      extra.cleanup?.();
    },
  };
}

async function startBaseline(nodeArgs = []) {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-base-'));
  const probeFile = path.join(dir, 'probe.json');
  const child = spawn(process.execPath, ['--require', PROBE, ...nodeArgs, path.join(__dirname, 'baseline-server.js'), String(port), SECRET], {
    env: { ...process.env, BENCH_PROBE_FILE: probeFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server = track('node:http baseline', child, {
    probeFile,
    url: `http://127.0.0.1:${port}/webhooks/bench`,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
  await waitReady(`http://127.0.0.1:${port}/health`, child, server.output);
  return server;
}

function yamlString(value) {
  return JSON.stringify(value);
}

/**
 * The real gateway. options: store ('sqlite' | 'memory' | 'redis'), storeUrl and prefix (redis), agent (YAML lines
 * of the agent block), ingest ('direct' | 'express'; 'express' routes the webhook through Express's router), logLevel,
 * maxPending, companions (trackers of processes that work for this gateway, e.g.
 * its redis-server: the load runs report their CPU apart).
 */
async function startGateway(options = {}) {
  const port = await freePort();
  const home = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-home-'));
  const probeFile = path.join(home, 'probe.json');
  const sinkFile = path.join(home, 'sink.json');
  const agent = options.agent ?? { runner: 'echo', concurrency: 2 };
  const config = [
    'platforms:',
    '  webhook:',
    '    enabled: true',
    '    extra:',
    '      host: 127.0.0.1',
    `      port: ${port}`,
    '      rate_limit: 100000000',
    '      routes:',
    '        bench:',
    `          secret: ${yamlString(SECRET)}`,
    '          events: [pull_request, push]',
    `          prompt: ${yamlString('PR #{number} "{pull_request.title}" by {pull_request.user.login} on {repository.full_name}')}`,
    `          deliver: ${options.deliver ?? 'bench_sink'}`,
    'agent:',
    ...Object.entries(agent).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`),
    'store:',
    `  backend: ${options.store ?? 'sqlite'}`,
    `  max_pending: ${options.maxPending ?? 100000000}`,
    ...(options.storeUrl ? [`  url: ${yamlString(options.storeUrl)}`] : []),
    ...(options.prefix ? [`  prefix: ${yamlString(options.prefix)}`] : []),
    'log:',
    `  level: ${options.logLevel ?? 'warn'}`,
    'plugins:',
    `  - ${yamlString(PLUGIN)}`,
    '',
  ].join('\n');
  writeFileSync(path.join(home, 'config.yaml'), config);
  return startGatewayHome({ ...options, home, port, probeFile, sinkFile, cleanup: () => rmSync(home, { recursive: true, force: true }) });
}

/**
 * `hookwise gateway run` (or, with ingest 'express', runGateway with Express's router) on a config dir that is
 * ready: options home, port (the one its config listens on), env (added), probeFile, sinkFile, label, nodeArgs,
 * companions, cleanup (run after the stop).
 */
async function startGatewayHome(options) {
  const { home, port, probeFile, sinkFile } = options;
  const env = {
    ...process.env,
    HOOKWISE_HOME: home,
    ...(probeFile ? { BENCH_PROBE_FILE: probeFile } : {}),
    ...(sinkFile ? { BENCH_SINK_FILE: sinkFile } : {}),
  };
  delete env.WEBHOOK_PORT;
  delete env.WEBHOOK_SECRET;
  delete env.WEBHOOK_ENABLED;
  Object.assign(env, options.env ?? {});
  const nodeArgs = ['--require', PROBE, ...(options.nodeArgs ?? [])];
  const args =
    options.ingest === 'express'
      ? [
          ...nodeArgs,
          '-e',
          `require('@hookwise/cli').loadFirstPartyPlugins().then((firstParty) => require('@hookwise/server').runGateway({ configDir: ${JSON.stringify(home)}, ingest: 'express', firstParty })).catch((e) => { console.error(e); process.exit(1); })`,
        ]
      : [...nodeArgs, path.join(ROOT, 'packages/cli/bin/run.js'), 'gateway', 'run'];
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const label = options.label ?? `gateway (${options.store ?? 'sqlite'}${options.ingest === 'express' ? ', Express router' : ''})`;
  const server = track(label, child, {
    probeFile,
    sinkFile,
    home,
    port,
    companions: options.companions ?? [],
    url: `http://127.0.0.1:${port}/webhooks/bench`,
    cleanup: options.cleanup,
  });
  await waitReady(`http://127.0.0.1:${port}/health`, child, server.output);
  return server;
}

function webhookBinary() {
  const found = spawnSync('sh', ['-c', 'command -v webhook'], { encoding: 'utf8' });
  const bin = found.stdout.trim();
  if (!bin) return undefined;
  const version = spawnSync(bin, ['-version'], { encoding: 'utf8' }).stdout.trim();
  return { bin, version };
}

/** adnanh/webhook with the same HMAC check; it answers at once and forks /bin/true per accepted request. */
async function startAdnanhWebhook() {
  const found = webhookBinary();
  if (!found) return undefined;
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-webhook-'));
  const hooks = [
    {
      id: 'bench',
      'execute-command': '/bin/true',
      'response-message': 'accepted',
      'success-http-response-code': 202,
      'trigger-rule': {
        match: { type: 'payload-hmac-sha256', secret: SECRET, parameter: { source: 'header', name: 'X-Hub-Signature-256' } },
      },
    },
  ];
  writeFileSync(path.join(dir, 'hooks.json'), JSON.stringify(hooks));
  const child = spawn(found.bin, ['-hooks', path.join(dir, 'hooks.json'), '-ip', '127.0.0.1', '-port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const server = track(`adnanh/webhook ${found.version.replace(/^webhook version /, '')}`, child, {
    url: `http://127.0.0.1:${port}/hooks/bench`,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
  await waitReady(`http://127.0.0.1:${port}/`, child, server.output);
  return server;
}

module.exports = { ROOT, freePort, track, startBaseline, startGateway, startGatewayHome, startAdnanhWebhook, webhookBinary, sleep };
