// The model proxy's cost per model call (`--only modelproxy`): the same client makes the same call to a scripted
// Anthropic stand-in directly and through the gateway's model proxy (packages/gateway/dist), in alternating blocks
// in one process, so that both meet the same load. The stand-in runs in a child process (its CPU is not ours).
// Reported: the median time a call takes each way (the difference is what the proxy adds), and this process's CPU
// per call each way (the difference is the proxy's CPU per response: forwarding, and reading usage from the stream).
'use strict';
const { spawn } = require('node:child_process');
const http = require('node:http');
const path = require('node:path');
const { ROOT } = require('../lib/servers');
const { num, median, table } = require('../lib/format');

/** A stand-in that streams `deltas` text events between message_start and message_delta, or answers JSON. */
const STAND_IN = `
const http = require('node:http');
const deltas = Number(process.argv[1]);
const ev = (name, data) => 'event: ' + name + '\\ndata: ' + JSON.stringify(data) + '\\n\\n';
const usage = { input_tokens: 1000, output_tokens: 1, cache_read_input_tokens: 2000, cache_creation_input_tokens: 0 };
let stream = ev('message_start', { type: 'message_start', message: { id: 'msg', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], usage } });
for (let i = 0; i < deltas; i++) stream += ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'token ' + i + ' ' } });
stream += ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: deltas } }) + ev('message_stop', { type: 'message_stop' });
const json = JSON.stringify({ id: 'msg', type: 'message', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'hello' }], usage: { ...usage, output_tokens: 5 } });
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    if (JSON.parse(body).stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // In pieces of about 20 events, as a model streams.
      const per = 20 * 140;
      for (let at = 0; at < stream.length; at += per) res.write(stream.slice(at, at + per));
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(json);
    }
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

function startStandIn(deltas) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', STAND_IN, String(deltas)], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (d) => resolve({ port: Number(String(d).trim()), stop: () => child.kill() }));
    child.once('error', reject);
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function call(base, token, stream) {
  const body = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, stream, messages: [{ role: 'user', content: 'hi' }] });
  return new Promise((resolve, reject) => {
    const url = new URL('/v1/messages', base);
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': token } },
      (res) => {
        let bytes = 0;
        res.on('data', (c) => (bytes += c.length));
        res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`status ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One block of `count` sequential calls: per-call times (ms) and CPU of this process per call (µs). */
async function block(base, token, stream, count) {
  const times = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i += 1) {
    const start = process.hrtime.bigint();
    await call(base, token, stream);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const used = process.cpuUsage(cpu);
  return { time: median(times), cpuUs: (used.user + used.system) / count };
}

async function run(options, log) {
  const { ModelProxy } = require(path.join(ROOT, 'packages/gateway/dist/model-proxy/model-proxy.js'));
  const { MemoryWindowCounters } = require(path.join(ROOT, 'packages/gateway/dist/stores/memory-counters.js'));
  const deltas = 300;
  const standIn = await startStandIn(deltas);
  const direct = `http://127.0.0.1:${standIn.port}`;
  const silent = { warn() {}, info() {}, debug() {}, error() {} };
  const proxy = new ModelProxy({
    config: { enabled: true, providers: { anthropic: { base_url: direct, api_key_env: 'BENCH_KEY' } } },
    env: { BENCH_KEY: 'bench-key' },
    logger: silent,
    budgets: { counters: new MemoryWindowCounters(), global: undefined },
  });
  const session = await proxy.open({ name: 'bench' }, { id: 'bench', deliveryId: 'bench', payload: {} });
  const { ANTHROPIC_BASE_URL: proxied, ANTHROPIC_API_KEY: token } = session.env();
  const rounds = options.quick ? 2 : 8;
  const count = options.quick ? 50 : 200;
  const rows = [];
  const goals = [];
  try {
    for (const stream of [true, false]) {
      await block(direct, 'x', stream, 20);
      await block(proxied, token, stream, 20);
      const runs = { direct: [], proxied: [] };
      for (let round = 0; round < rounds; round += 1) {
        const order = round % 2 ? ['proxied', 'direct'] : ['direct', 'proxied'];
        for (const way of order) runs[way].push(await block(way === 'direct' ? direct : proxied, way === 'direct' ? 'x' : token, stream, count));
      }
      const t = (way) => median(runs[way].map((r) => r.time));
      const c = (way) => median(runs[way].map((r) => r.cpuUs));
      const what = stream ? `streamed, ${deltas} text events (~${num(deltas * 0.14, 0)} KB)` : 'JSON, not streamed';
      log(`  ${what}: direct ${num(t('direct'), 3)} ms, proxied ${num(t('proxied'), 3)} ms; CPU ${num(c('direct'), 0)} / ${num(c('proxied'), 0)} µs`);
      rows.push([
        what,
        `${num(t('direct'), 3)} ms`,
        `${num(t('proxied'), 3)} ms`,
        `+${num(t('proxied') - t('direct'), 3)} ms`,
        `${num(c('direct'), 0)} µs`,
        `${num(c('proxied'), 0)} µs`,
        `+${num(c('proxied') - c('direct'), 0)} µs`,
      ]);
      if (stream)
        goals.push({
          name: 'the model proxy adds under 5 ms to a streamed model call (median, local upstream)',
          value: `+${num(t('proxied') - t('direct'), 3)} ms; +${num(c('proxied') - c('direct'), 0)} µs CPU per streamed response`,
          ok: t('proxied') - t('direct') < 5,
        });
    }
  } finally {
    await proxy.close();
    standIn.stop();
    agent.destroy();
  }
  const markdown = [
    table(
      ['model call', 'direct (median)', 'through the proxy (median)', 'added time', 'CPU per call, direct', 'CPU per call, proxied', 'proxy CPU per call'],
      rows,
    ),
    '',
    `${rounds} alternating rounds of ${count} sequential calls each way after a warm-up, one process for the client and the proxy (its CPU per call is the difference), the Anthropic stand-in in a child process on 127.0.0.1. The proxy checks the run's token and caps, forwards with the real key, passes the stream on as it arrives and reads message_start and message_delta for the usage (the text events are passed on without a parse), then prices the call.`,
  ].join('\n');
  return { title: 'Model proxy: added time and CPU per model call', markdown, goals };
}

module.exports = { run };
