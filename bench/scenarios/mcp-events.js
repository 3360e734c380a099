// MCP Events fan-out and polling (`--only mcpevents`): a real `hookwise gateway run` (SQLite) with one route and one
// MCP client holding 100 webhook subscriptions (events/subscribe, callbacks on a local receiver that answers the
// verification challenge and counts deliveries). The same events are sent twice: once with no subscriber (the
// baseline: what ingesting and running an event costs) and once with 100, so the CPU the gateway spends per webhook
// delivery is the difference, measured in the same run. Then a client polls every stored event from the start
// (events/poll, 100 a page) and the gateway's CPU per event handed out is read the same way.
'use strict';
const http = require('node:http');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { freePort, startGatewayHome, sleep } = require('../lib/servers');
const { num, median, table } = require('../lib/format');
const { encodeCursor } = require('@hookwise/gateway');

const SUBSCRIBERS = 100;
const TOKEN = 'mcp-events-bench-token-0123456789';
const SETTLE_MS = 1600; // an event is handed out once it was received this long ago (mcp-events.ts SETTLE_MS)

/** A callback receiver: echoes each verification challenge and counts deliveries per subscription path. */
function startReceiver() {
  const counts = new Map();
  let total = 0;
  let last = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      if (body.type === 'verification')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: body.challenge }));
      counts.set(req.url, (counts.get(req.url) ?? 0) + 1);
      total += 1;
      last = Date.now();
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        counts,
        total: () => total,
        last: () => last,
        close: () => new Promise((done) => server.close(done)),
      }),
    ),
  );
}

async function mcpClient(base) {
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { ResultSchema } = require('@modelcontextprotocol/sdk/types.js');
  const client = new Client({ name: 'hookwise-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  return { client, request: (method, params) => client.request({ method, params }, ResultSchema) };
}

/** Sends `count` events to the route, `concurrency` at a time; every answer must be 202. */
async function send(base, from, count) {
  const posts = [];
  for (let i = from; i < from + count; i += 1) {
    posts.push(
      fetch(`${base}/webhooks/bench`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': `ev-${i}` },
        body: JSON.stringify({ n: i }),
      }).then((r) => {
        if (r.status !== 202) throw new Error(`event ${i} answered ${r.status}`);
      }),
    );
    if (posts.length >= 10) await Promise.all(posts.splice(0));
  }
  await Promise.all(posts);
}

/** Waits until the receiver has `expected` deliveries and nothing came for a while (or the time is up). */
async function settled(receiver, expected, timeoutMs) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && receiver.total() < expected) await sleep(50);
  await sleep(SETTLE_MS);
}

/** The gateway's CPU seconds and the wall seconds while `work` runs. */
async function cpuOver(gateway, work) {
  const [cpu, at] = [gateway.cpuSeconds(), Date.now()];
  await work();
  return { cpu: gateway.cpuSeconds() - cpu, seconds: (Date.now() - at) / 1000 };
}

async function run(options, log) {
  const events = options.quick ? 20 : 100;
  const home = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-mcp-events-'));
  const port = await freePort();
  writeFileSync(
    path.join(home, 'config.yaml'),
    JSON.stringify({
      platforms: {
        webhook: { enabled: true, extra: { host: '127.0.0.1', port, rate_limit: 100_000, routes: { bench: { secret: 'INSECURE_NO_AUTH', deliver: 'none' } } } },
      },
      agent: { runner: 'echo', concurrency: 4 },
      admin: { enabled: true },
      mcp: { clients: { bench: { token_env: 'MCP_BENCH_TOKEN', events: ['bench'] } }, webhooks: { allow_loopback: true, max_per_client: SUBSCRIBERS } },
      log: { level: 'warn', access: false },
      store: { backend: 'sqlite' },
    }),
  );
  const receiver = await startReceiver();
  const gateway = await startGatewayHome({ home, port, env: { MCP_BENCH_TOKEN: TOKEN }, label: 'gateway (MCP Events)' });
  const base = `http://127.0.0.1:${port}`;
  let result;
  try {
    // Warm-up (not measured); the gateway's idle CPU (its pollers), taken out of every window below; then the
    // baseline: the events ingested and run with no subscriber.
    await send(base, 10_000, 20);
    await sleep(SETTLE_MS + 1000);
    const idle = await cpuOver(gateway, () => sleep(3000));
    const idlePerSecond = idle.cpu / idle.seconds;
    const baseline = await cpuOver(gateway, async () => {
      await send(base, 0, events);
      await sleep(SETTLE_MS + 1000);
    });
    const baselineCpu = baseline.cpu - idlePerSecond * baseline.seconds;

    const { client, request } = await mcpClient(base);
    for (let i = 0; i < SUBSCRIBERS; i += 1)
      await request('events/subscribe', { name: 'bench', delivery: { mode: 'webhook', url: `${receiver.url}/s/${i}` }, ttl: 3600 });
    log(`  ${SUBSCRIBERS} webhook subscriptions made`);

    const started = Date.now();
    const fanout = await cpuOver(gateway, async () => {
      await send(base, events, events);
      await settled(receiver, events * SUBSCRIBERS, 120_000);
    });
    const fanoutCpu = fanout.cpu - idlePerSecond * fanout.seconds;
    const seconds = (receiver.last() - started) / 1000;
    const deliveries = receiver.total();
    const perSubscriber = [...receiver.counts.values()];

    // Polling every stored event from the start, 100 a page, five times.
    const pollCosts = [];
    let polled = 0;
    for (let round = 0; round < 5; round += 1) {
      const before = gateway.cpuSeconds();
      // A cursor before the first event (null would start from now): every stored event is handed out.
      let cursor = encodeCursor({ t: 0, id: '' });
      polled = 0;
      for (let page = 0; page < 100; page += 1) {
        const answer = await request('events/poll', { name: 'bench', cursor, maxEvents: 100 });
        polled += answer.events.length;
        cursor = answer.cursor;
        if (!answer.hasMore) break;
      }
      pollCosts.push((gateway.cpuSeconds() - before) / polled);
    }
    await client.close();
    result = { baselineCpu, fanoutCpu, seconds, deliveries, perSubscriber, pollPerEvent: median(pollCosts), polled };
  } finally {
    await gateway.stop();
    await receiver.close();
    rmSync(home, { recursive: true, force: true });
  }
  const ingestPerEvent = result.baselineCpu / events;
  const perDelivery = Math.max(0, result.fanoutCpu - result.baselineCpu) / (events * SUBSCRIBERS);
  const rate = result.deliveries / Math.max(result.seconds, 0.001);
  const once = result.perSubscriber.length === SUBSCRIBERS && result.perSubscriber.every((n) => n === events);
  log(
    `  ${result.deliveries} deliveries in ${num(result.seconds, 1)} s; ${num(perDelivery * 1e6, 0)} µs CPU each; poll ${num(result.pollPerEvent * 1e6, 0)} µs per event`,
  );
  const markdown = [
    table(
      ['measured', 'value'],
      [
        ['events sent (with 100 subscribers)', String(events)],
        ['webhook deliveries received', `${result.deliveries} (each subscriber: ${once ? `${events}, once each` : 'not all'})`],
        ['deliveries per second (first event sent to last delivery received)', num(rate, 0)],
        ['gateway CPU per ingested and run event, no subscriber (baseline, same run; idle CPU taken out)', `${num(ingestPerEvent * 1e6, 0)} µs`],
        ['gateway CPU per webhook delivery (fan-out run minus baseline, over events × 100)', `${num(perDelivery * 1e6, 0)} µs`],
        [
          `gateway CPU per event handed out by events/poll (${result.polled} events from the start, 100 a page, median of 5)`,
          `${num(result.pollPerEvent * 1e6, 0)} µs`,
        ],
      ],
    ),
    '',
    `One MCP client holds ${SUBSCRIBERS} webhook subscriptions to one route of a real \`hookwise gateway run\` (SQLite, the \`echo\` agent, \`deliver: none\`); the callbacks are one local receiver that answers the verification challenge and counts what each subscription got. Each delivery is signed (Standard Webhooks) and kept in the store's outbox until sent, like \`notify:\` messages. CPU is the gateway process's own (\`/proc/<pid>/stat\`).`,
  ].join('\n');
  const goals = [
    {
      name: `MCP Events: each of ${SUBSCRIBERS} webhook subscribers gets every event once`,
      value: `${result.deliveries} of ${events * SUBSCRIBERS}`,
      ok: once,
    },
    {
      name: 'MCP Events: a webhook delivery costs the gateway less CPU than ingesting and running an event (same run)',
      value: `${num(perDelivery * 1e6, 0)} µs against ${num(ingestPerEvent * 1e6, 0)} µs; ${num(rate, 0)} deliveries/s`,
      ok: perDelivery < ingestPerEvent,
    },
    {
      name: 'MCP Events: events/poll costs less CPU per event than ingesting it (same run)',
      value: `${num(result.pollPerEvent * 1e6, 0)} µs against ${num(ingestPerEvent * 1e6, 0)} µs`,
      ok: result.pollPerEvent < ingestPerEvent,
    },
  ];
  return { title: 'MCP Events: webhook fan-out and polling', markdown, goals };
}

module.exports = { run };
