// A route with `source: mcp-events` against an upstream MCP Events server built in this test with the official MCP
// SDK's server classes (the events methods written by hand, as a third-party server would): the gateway subscribes
// by webhook with the route's URL as the callback and answers the upstream's verification; the upstream's
// deliveries (signed with the `standardwebhooks` library) run the route's agent; the subscription is refreshed
// before it expires; a forged or unsigned delivery is refused 401; a restart on SQLite goes on with the same
// subscription.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Webhook } from 'standardwebhooks';
import { startTestGateway, testProcessEnv, type TestGateway } from '@hookwise/testing';

const UPSTREAM_TOKEN = 'upstream-token-0123456789abcdef';
const GLOBAL_SECRET = 'it-is-the-global-secret-0123456789';

interface UpstreamSubscription {
  id: string;
  name: string;
  url: string;
  secret: string;
  expiresAt: number;
  args?: unknown;
}

const subscriptions = new Map<string, UpstreamSubscription>();
const subscribeCalls: Array<Record<string, unknown>> = [];
let upstream: http.Server;
let upstreamUrl = '';

/** The upstream's events/subscribe: verify the callback with a challenge, then keep (or refresh) the subscription. */
async function subscribe(params: Record<string, unknown>): Promise<Record<string, unknown>> {
  subscribeCalls.push(params);
  const delivery = params.delivery as { mode: string; url: string };
  if (delivery?.mode !== 'webhook') throw new McpError(-32026 as ErrorCode, 'webhook only');
  if (params.name !== 'deploys') throw new McpError(-32023 as ErrorCode, 'no such event', { kind: 'event' });
  const ttl = Number(params.ttl ?? 3600);
  const known = typeof params.subscriptionId === 'string' ? subscriptions.get(params.subscriptionId) : undefined;
  if (params.subscriptionId !== undefined && !known) throw new McpError(-32023 as ErrorCode, 'no such subscription', { kind: 'subscription' });
  const sub: UpstreamSubscription = known ?? {
    id: `sub_${randomBytes(8).toString('hex')}`,
    name: 'deploys',
    url: delivery.url,
    secret: `whsec_${randomBytes(32).toString('base64')}`,
    expiresAt: 0,
  };
  if (!known) {
    const challenge = randomBytes(16).toString('hex');
    const answer = await fetch(delivery.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-mcp-subscription-id': sub.id },
      body: JSON.stringify({ type: 'verification', challenge }),
    });
    const echoed = answer.ok ? ((await answer.json()) as { challenge?: string }).challenge : undefined;
    if (echoed !== challenge) throw new McpError(ErrorCode.InvalidParams, `callback verification failed (HTTP ${answer.status})`);
  }
  sub.expiresAt = Date.now() + ttl * 1000;
  sub.args = params.arguments;
  subscriptions.set(sub.id, sub);
  return { resultType: 'complete', subscriptionId: sub.id, secret: sub.secret, expiresAt: new Date(sub.expiresAt).toISOString(), ttl };
}

function startUpstream(): Promise<void> {
  upstream = http.createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${UPSTREAM_TOKEN}`) {
      res.writeHead(401).end();
      return;
    }
    const server = new Server({ name: 'upstream-events', version: '1.0.0' }, { capabilities: { extensions: { 'io.modelcontextprotocol/events': {} } } });
    server.fallbackRequestHandler = async (request) => {
      if (request.method === 'events/subscribe') return subscribe((request.params ?? {}) as Record<string, unknown>);
      throw new McpError(ErrorCode.MethodNotFound, request.method);
    };
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => server.close()));
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  return new Promise((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
}

/** The upstream posts an event to every live subscription, signed with its secret (or `forgeWith`'s). */
async function emit(eventId: string, data: Record<string, unknown>, forgeWith?: string, signed = true): Promise<number[]> {
  const statuses: number[] = [];
  for (const sub of subscriptions.values()) {
    if (sub.expiresAt < Date.now()) continue;
    const body = JSON.stringify({ eventId, name: sub.name, timestamp: new Date().toISOString(), data, cursor: `c-${eventId}` });
    const msgId = `msg_${randomBytes(8).toString('hex')}`;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-mcp-subscription-id': sub.id };
    if (signed) {
      const now = new Date();
      headers['webhook-id'] = msgId;
      headers['webhook-timestamp'] = String(Math.floor(now.getTime() / 1000));
      headers['webhook-signature'] = new Webhook(forgeWith ?? sub.secret).sign(msgId, now, body);
    }
    statuses.push((await fetch(sub.url, { method: 'POST', headers, body })).status);
  }
  return statuses;
}

const configDir = mkdtempSync(join(tmpdir(), 'hookwise-mcp-source-'));
let gw: TestGateway | undefined;
let offsetMs = 0;
/** The gateway's public address (public_url): a forwarder to whichever gateway runs, so it outlives a restart. */
let front: http.Server;
let frontUrl = '';

function startFront(): Promise<void> {
  front = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<string, string>;
      fetch(`${gw!.url}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) })
        .then(async (answer) => res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' }).end(await answer.text()))
        .catch(() => res.writeHead(502).end());
    });
  });
  return new Promise((resolve) => front.listen(0, '127.0.0.1', () => resolve()));
}

function start(): Promise<TestGateway> {
  return startTestGateway({
    configDir,
    config: {
      platforms: {
        webhook: {
          enabled: true,
          extra: {
            // A global fallback secret that other senders know: a source: mcp-events route never verifies with it.
            secret: GLOBAL_SECRET,
            public_url: frontUrl,
            routes: {
              upstream: {
                source: 'mcp-events',
                source_options: { server: `${upstreamUrl}/mcp`, event: 'deploys', token_env: 'UPSTREAM_TOKEN', ttl_seconds: 60 },
                prompt: 'deploy of {service} to {env}',
              },
            },
          },
        },
      },
      store: { backend: 'sqlite' },
    },
    env: testProcessEnv(configDir, { UPSTREAM_TOKEN: UPSTREAM_TOKEN }),
    pollMs: 20,
    mcpEvents: { clock: () => Date.now() + offsetMs, refreshMs: 100 },
  });
}

async function waitFor(what: string, check: () => boolean, ms = 8000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  await startUpstream();
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  await startFront();
  frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  gw = await start();
});

afterAll(async () => {
  await gw?.stop();
  await new Promise((resolve) => upstream.close(resolve));
  await new Promise((resolve) => front.close(resolve));
  rmSync(configDir, { recursive: true, force: true });
});

describe('source: mcp-events', () => {
  it('subscribes to the upstream event type with the route as the callback, and its deliveries run the route', async () => {
    await waitFor('the subscription', () => subscriptions.size === 1);
    const [sub] = subscriptions.values();
    expect(sub.url).toBe(`${frontUrl}/webhooks/upstream`);
    expect(subscribeCalls[0]).toMatchObject({ name: 'deploys', delivery: { mode: 'webhook' }, ttl: 60 });
    await gw!.waitForLog(`route 'upstream': subscribed to deploys of ${upstreamUrl}/mcp (subscription ${sub.id}`);
    // What `hookwise mcp subscriptions` lists of it: no secret.
    const listed = await gw!.gateway.features.mcpEvents.subscriptionListing();
    expect(listed).toEqual([
      expect.objectContaining({ kind: 'upstream', id: sub.id, holder: 'upstream', name: 'deploys', url: `${upstreamUrl}/mcp`, expired: false }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(sub.secret);

    const finished: Array<{ jobId: string; route: string }> = [];
    const off = gw!.gateway.on('completed', (e) => finished.push({ jobId: e.jobId, route: e.route }));
    try {
      expect(await emit('dep-1', { service: 'api', env: 'prod' })).toEqual([202]);
      await waitFor('the route run', () => finished.length === 1);
      const job = await gw!.gateway.store.jobs.get(finished[0].jobId);
      expect(job).toMatchObject({ route: 'upstream', deliveryId: 'dep-1', event: 'deploys', payload: { service: 'api', env: 'prod' } });
      expect(job!.answer).toContain('deploy of api to prod');
      // The upstream's redelivery of the same event is a duplicate.
      expect(await emit('dep-1', { service: 'api', env: 'prod' })).toEqual([200]);
    } finally {
      off();
    }
    expect(gw!.fullLogText()).not.toContain(sub.secret.slice(6));
    expect(gw!.fullLogText()).not.toContain(UPSTREAM_TOKEN);
  });

  it('refuses a forged or unsigned delivery with 401', async () => {
    expect(await emit('dep-forged', { service: 'x', env: 'y' }, `whsec_${randomBytes(32).toString('base64')}`)).toEqual([401]);
    expect(await emit('dep-unsigned', { service: 'x', env: 'y' }, undefined, false)).toEqual([401]);
    // Signed with the global fallback secret's bytes (what other routes would accept): refused too.
    expect(await emit('dep-global', { service: 'x', env: 'y' }, Buffer.from(GLOBAL_SECRET).toString('base64'))).toEqual([401]);
    const ids = (await gw!.gateway.store.jobs.list({ route: 'upstream' })).map((j) => j.deliveryId);
    expect(ids).not.toContain('dep-forged');
    expect(ids).not.toContain('dep-unsigned');
    expect(ids).not.toContain('dep-global');
  });

  it('refreshes the subscription (same id) once half its TTL is gone', async () => {
    const [sub] = subscriptions.values();
    const before = subscribeCalls.length;
    offsetMs = 40_000;
    try {
      await waitFor('the refresh', () => subscribeCalls.length > before);
      expect(subscribeCalls[before]).toMatchObject({ subscriptionId: sub.id, name: 'deploys' });
      await gw!.waitForLog(`route 'upstream': refreshed deploys`);
      expect(subscriptions.size).toBe(1);
      expect(await emit('dep-2', { service: 'web', env: 'staging' })).toEqual([202]);
    } finally {
      offsetMs = 0;
    }
  });

  it('refuses to start a route without server and event, with its own secret, or with an unset token variable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookwise-mcp-source-'));
    try {
      const routes = { bad: { source: 'mcp-events', secret: 'a-route-secret-0123456789', source_options: { token_env: 'NOT_SET_ANYWHERE' }, prompt: 'x' } };
      const attempt = startTestGateway({ configDir: dir, config: { platforms: { webhook: { enabled: true, extra: { routes } } } }, env: testProcessEnv(dir) });
      await expect(attempt).rejects.toThrow(/source_options\.server is required/);
      await expect(attempt).rejects.toThrow(/source_options\.event is required/);
      await expect(attempt).rejects.toThrow(/remove secret\/secrets/);
      await expect(attempt).rejects.toThrow(/NOT_SET_ANYWHERE, which is not set/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('goes on with the same subscription after a restart on SQLite', async () => {
    const calls = subscribeCalls.length;
    await gw!.stop();
    gw = await start();
    // Fresh enough: no new subscribe, and the secret comes from the store.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(subscribeCalls.length).toBe(calls);
    expect(await emit('dep-3', { service: 'db', env: 'prod' })).toEqual([202]);
  });

  it("gives a profile's route its own callback under /p/<profile>/, where the upstream's deliveries run that profile's route", async () => {
    await gw!.stop();
    mkdirSync(join(configDir, 'profiles', 'acme'), { recursive: true });
    const route = {
      source: 'mcp-events',
      source_options: { server: `${upstreamUrl}/mcp`, event: 'deploys', token_env: 'UPSTREAM_TOKEN' },
      prompt: 'acme {service}',
    };
    writeFileSync(
      join(configDir, 'profiles', 'acme', 'config.yaml'),
      JSON.stringify({ platforms: { webhook: { extra: { routes: { 'acme-deploys': route } } } } }),
    );
    gw = await start();
    await waitFor("the profile's subscription", () => subscriptions.size === 2);
    const acme = [...subscriptions.values()].find((sub) => sub.url.includes('/p/'));
    expect(acme?.url).toBe(`${frontUrl}/p/acme/webhooks/acme-deploys`);
    // Each subscription's delivery is taken by its own profile's route (the default's with its secret, acme's with acme's).
    expect(await emit('dep-4', { service: 'queue', env: 'prod' })).toEqual([202, 202]);
  });
});
