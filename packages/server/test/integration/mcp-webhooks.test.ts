// Webhook delivery of the MCP Events server, against a real gateway on SQLite, real MCP clients of the official
// SDK and a real HTTP receiver: subscribe (the callback verified by an echoed challenge), each accepted event posted
// signed in the Standard Webhooks format (checked with the `standardwebhooks` library), refresh by subscribing
// again with the id, unsubscribe, expiry, the errors a client can meet, a failing callback retried and reported
// without slowing ingest, and a subscription that outlives a restart.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Webhook } from 'standardwebhooks';
import { signGithub, startTestGateway, testProcessEnv, type TestGateway } from '@hookwise/testing';

const SECRET = 'it-is-a-test-secret-0123456789';
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Subscribed = { resultType: string; subscriptionId: string; secret: string; expiresAt: string; ttl: number };

const configDir = mkdtempSync(join(tmpdir(), 'hookwise-mcp-webhooks-'));
const received: Received[] = [];
const verifications: Received[] = [];
let receiver: http.Server;
let base = '';
let gw: TestGateway | undefined;
let offsetMs = 0;
const clients: Client[] = [];

/** /hook echoes the challenge and takes deliveries; /failing echoes it and answers deliveries 500; /silent never echoes. */
function startReceiver(): Promise<void> {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const entry = { path: req.url ?? '', headers: req.headers, body };
      const parsed = JSON.parse(body) as { type?: string; challenge?: string };
      if (parsed.type === 'verification') {
        verifications.push(entry);
        res.writeHead(200, { 'content-type': 'application/json' }).end(req.url === '/silent' ? '{"ok":true}' : JSON.stringify({ challenge: parsed.challenge }));
        return;
      }
      received.push(entry);
      res.writeHead(req.url === '/failing' ? 500 : 204).end();
    });
  });
  return new Promise((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
}

function start(): Promise<TestGateway> {
  return startTestGateway({
    configDir,
    config: {
      admin: { enabled: true, token: 'admin-token-0123456789abcdef' },
      metrics: { enabled: true },
      mcp: {
        clients: { alice: { token_env: 'MCP_ALICE_TOKEN', events: ['prs'] }, bob: { token_env: 'MCP_BOB_TOKEN', events: ['ci-*'] } },
        webhooks: { allow_loopback: true, max_per_client: 5 },
      },
      retry: { max_attempts: 2, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
      platforms: {
        webhook: {
          enabled: true,
          extra: {
            routes: {
              prs: { secret: SECRET, events: ['pull_request', 'issues'], prompt: 'review {action}' },
              'ci-builds': { secret: SECRET, prompt: 'build {status}' },
            },
          },
        },
      },
      store: { backend: 'sqlite' },
    },
    env: testProcessEnv(configDir, { MCP_ALICE_TOKEN: ALICE, MCP_BOB_TOKEN: BOB }),
    pollMs: 20,
    mcpEvents: { clock: () => Date.now() + offsetMs, refreshMs: 100 },
  });
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'webhook-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw!.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

const call = <T>(client: Client, method: string, params: Record<string, unknown>) => client.request({ method, params }, ResultSchema) as unknown as Promise<T>;
const subscribe = (client: Client, params: Record<string, unknown>) => call<Subscribed>(client, 'events/subscribe', params);

async function postPr(id: string, action: string, event = 'pull_request'): Promise<void> {
  const body = JSON.stringify({ action, number: 7 });
  const answer = await gw!.post('prs', body, { 'x-hub-signature-256': signGithub(SECRET, body), 'x-github-event': event, 'x-github-delivery': id });
  expect(answer.status).toBe(202);
}

async function waitFor(what: string, check: () => boolean, ms = 8000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const deliveriesTo = (path: string) => received.filter((r) => r.path === path);
const bodyOf = (r: Received) => JSON.parse(r.body) as { eventId: string; name: string; timestamp: string; data: Record<string, unknown>; cursor: string };

beforeAll(async () => {
  await startReceiver();
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  gw = await start();
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await gw?.stop();
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(configDir, { recursive: true, force: true });
});

describe('MCP Events webhook delivery', () => {
  it('lists webhook as a delivery mode', async () => {
    const alice = await connect(ALICE);
    const listed = await call<{ events: Array<{ delivery: string[] }> }>(alice, 'events/list', {});
    expect(listed.events[0].delivery).toEqual(['poll', 'push', 'webhook']);
  });

  it('subscribes after the callback echoes a challenge, and posts each accepted event signed with the subscription secret', async () => {
    const alice = await connect(ALICE);
    const sub = await subscribe(alice, { name: 'prs/pull_request', delivery: { mode: 'webhook', url: `${base}/hook` }, ttl: 600 });
    expect(sub).toMatchObject({ resultType: 'complete', ttl: 600 });
    expect(sub.subscriptionId).toMatch(/^sub_[0-9a-f]{32}$/);
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Date.parse(sub.expiresAt) - Date.now()).toBeGreaterThan(590_000);
    const challenge = verifications.find((v) => v.headers['x-mcp-subscription-id'] === sub.subscriptionId);
    expect(challenge).toBeDefined();
    // The verification is signed like a delivery, so a receiver that knows the secret can check it.
    expect(() => new Webhook(sub.secret).verify(challenge!.body, challenge!.headers as Record<string, string>)).not.toThrow();

    await postPr('wh-1', 'opened');
    await postPr('wh-2', 'labeled', 'issues'); // another event type of the route: not this subscription's
    await waitFor('the delivery', () => deliveriesTo('/hook').length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const mine = deliveriesTo('/hook').filter((r) => r.headers['x-mcp-subscription-id'] === sub.subscriptionId);
    expect(mine).toHaveLength(1);
    const verified = new Webhook(sub.secret).verify(mine[0].body, mine[0].headers as Record<string, string>) as Record<string, unknown>;
    expect(verified).toMatchObject({ eventId: 'wh-1', name: 'prs/pull_request', data: { action: 'opened', number: 7 } });
    expect(typeof verified.cursor).toBe('string');
    expect(Number.isNaN(Date.parse(String(verified.timestamp)))).toBe(false);
    expect(mine[0].headers['webhook-id']).toMatch(/^msg_/);
    // A wrong key does not verify it.
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(mine[0].body, mine[0].headers as Record<string, string>)).toThrow();
    // The secret never reaches the log; the subscription does, with its callback.
    expect(gw!.fullLogText()).not.toContain(sub.secret.slice(6));
    expect(gw!.fullLogText()).toContain(
      `MCP client 'alice' subscribed to 'prs/pull_request' by webhook (subscription ${sub.subscriptionId}, callback ${base}/hook, until `,
    );

    // Polls with the delivered cursor go on from there.
    const polled = await call<{ events: unknown[] }>(alice, 'events/poll', { name: 'prs/pull_request', cursor: verified.cursor });
    expect(polled.events).toEqual([]);
    await call(alice, 'events/unsubscribe', { subscriptionId: sub.subscriptionId });
  });

  it("delivers only what passes the subscriber's filter", async () => {
    const alice = await connect(ALICE);
    const sub = await subscribe(alice, {
      name: 'prs',
      arguments: { filter: { path: 'action', equals: 'closed' } },
      delivery: { mode: 'webhook', url: `${base}/filtered` },
    });
    await postPr('wh-f1', 'opened');
    await postPr('wh-f2', 'closed');
    await waitFor('the filtered delivery', () => deliveriesTo('/filtered').length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(deliveriesTo('/filtered').map((r) => bodyOf(r).eventId)).toEqual(['wh-f2']);
    await call(alice, 'events/unsubscribe', { subscriptionId: sub.subscriptionId });
  });

  it('refreshes a subscription by subscribing again with its id: same secret, later expiry; unsubscribe ends it', async () => {
    const alice = await connect(ALICE);
    const first = await subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: `${base}/refresh` }, ttl: 120 });
    const again = await subscribe(alice, {
      name: 'prs',
      subscriptionId: first.subscriptionId,
      delivery: { mode: 'webhook', url: `${base}/refresh` },
      ttl: 3600,
    });
    expect(again.subscriptionId).toBe(first.subscriptionId);
    expect(again.secret).toBe(first.secret);
    expect(Date.parse(again.expiresAt)).toBeGreaterThan(Date.parse(first.expiresAt));
    // Another client cannot refresh or end it: it is answered as unknown.
    const bob = await connect(BOB);
    await expect(
      subscribe(bob, { name: 'ci-builds', subscriptionId: first.subscriptionId, delivery: { mode: 'webhook', url: `${base}/refresh` } }),
    ).rejects.toMatchObject({ code: -32023 });
    await expect(call(bob, 'events/unsubscribe', { subscriptionId: first.subscriptionId })).rejects.toMatchObject({ code: -32023 });

    await call(alice, 'events/unsubscribe', { subscriptionId: first.subscriptionId });
    await postPr('wh-r1', 'opened');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(deliveriesTo('/refresh')).toHaveLength(0);
    await expect(call(alice, 'events/unsubscribe', { subscriptionId: first.subscriptionId })).rejects.toMatchObject({ code: -32023 });
  });

  it('stops delivering once a subscription expired', async () => {
    const alice = await connect(ALICE);
    const sub = await subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: `${base}/expiring` }, ttl: 60 });
    await postPr('wh-e1', 'opened');
    await waitFor('the delivery before expiry', () => deliveriesTo('/expiring').length === 1);
    offsetMs = 61_000;
    try {
      await gw!.waitForLog(`MCP subscription ${sub.subscriptionId} of alice ended`);
      await postPr('wh-e2', 'opened');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(deliveriesTo('/expiring').map((r) => bodyOf(r).eventId)).toEqual(['wh-e1']);
      await expect(call(alice, 'events/unsubscribe', { subscriptionId: sub.subscriptionId })).rejects.toMatchObject({ code: -32023 });
    } finally {
      offsetMs = 0;
    }
  });

  it('answers the errors of the extension: unknown type, a type not granted, a bad URL, an unverified callback, another mode', async () => {
    const alice = await connect(ALICE);
    const bob = await connect(BOB);
    const webhook = { mode: 'webhook', url: `${base}/hook` };
    await expect(subscribe(alice, { name: 'nope', delivery: webhook })).rejects.toMatchObject({ code: -32023, data: { kind: 'event' } });
    // Bob was not given prs: refused as if it did not exist, and nothing is posted to the callback.
    const before = verifications.length;
    await expect(subscribe(bob, { name: 'prs', delivery: webhook })).rejects.toMatchObject({ code: -32023 });
    expect(verifications.length).toBe(before);
    await expect(subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: 'not a url' } })).rejects.toMatchObject({ code: -32602 });
    await expect(subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: 'http://example.com/hook' } })).rejects.toThrow(/must be https/);
    await expect(subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: 'https://10.0.0.1/hook' } })).rejects.toThrow(/internal address/);
    await expect(subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: `${base}/silent` } })).rejects.toThrow(
      /did not echo the verification challenge/,
    );
    await expect(subscribe(alice, { name: 'prs', delivery: { mode: 'push' } })).rejects.toMatchObject({ code: -32026, data: { feature: 'deliveryMode' } });
    await expect(subscribe(alice, { name: 'prs', delivery: webhook, arguments: { filter: { expression: 'true' } } })).rejects.toMatchObject({ code: -32602 });
    await expect(subscribe(alice, { name: 'prs', delivery: webhook, ttl: -1 })).rejects.toMatchObject({ code: -32602 });
    // The most a client may hold.
    const held: string[] = [];
    for (let i = 0; i < 5; i++) held.push((await subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: `${base}/many` } })).subscriptionId);
    await expect(subscribe(alice, { name: 'prs', delivery: webhook })).rejects.toMatchObject({ code: -32024 });
    for (const id of held) await call(alice, 'events/unsubscribe', { subscriptionId: id });
  });

  it('retries a failing callback with the retry policy, reports it, and never holds up ingest', async () => {
    const reports: Array<{ outcome: string; attempts: number; client: string }> = [];
    const off = gw!.gateway.on('mcp_webhook_delivery', (e) => reports.push({ outcome: e.outcome, attempts: e.attempts, client: e.client }));
    try {
      const alice = await connect(ALICE);
      const sub = await subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: `${base}/failing` } });
      const started = Date.now();
      await postPr('wh-x1', 'opened');
      expect(Date.now() - started).toBeLessThan(2000);
      await waitFor('the given-up report', () => reports.some((r) => r.outcome === 'failed'));
      expect(deliveriesTo('/failing')).toHaveLength(2); // retry.max_attempts
      expect(reports).toEqual([
        { outcome: 'retrying', attempts: 1, client: 'alice' },
        { outcome: 'failed', attempts: 2, client: 'alice' },
      ]);
      await gw!.waitForLog(`MCP subscription ${sub.subscriptionId} of alice: gave up on an event after 2 attempt(s)`);
      const metrics = await (await fetch(`${gw!.url}/metrics`)).text();
      expect(metrics).toMatch(/hookwise_mcp_webhook_deliveries_total\{client="alice",outcome="failed"\} 1/);
      expect(metrics).toMatch(/hookwise_mcp_webhook_deliveries_total\{client="alice",outcome="delivered"\} \d+/);
      await call(alice, 'events/unsubscribe', { subscriptionId: sub.subscriptionId });
    } finally {
      off();
    }
  });

  it('keeps a subscription across a restart on SQLite', async () => {
    let alice = await connect(ALICE);
    const sub = await subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: `${base}/durable` } });
    await gw!.stop();
    gw = await start();
    alice = await connect(ALICE);
    await postPr('wh-d1', 'opened');
    await waitFor('the delivery after the restart', () => deliveriesTo('/durable').length === 1);
    const delivered = deliveriesTo('/durable')[0];
    expect(new Webhook(sub.secret).verify(delivered.body, delivered.headers as Record<string, string>)).toMatchObject({ eventId: 'wh-d1' });
    await call(alice, 'events/unsubscribe', { subscriptionId: sub.subscriptionId });
  });
});
