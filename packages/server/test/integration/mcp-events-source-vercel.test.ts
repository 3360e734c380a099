// A route with `source: mcp-events` against an upstream MCP Events server built with a published third-party
// implementation: Vercel's `mcp-handler` 2.4.0 (`experimental_registerMcpEvents` on a `@modelcontextprotocol/server`
// 2.4.0 McpServer, served by its fetch-style `createMcpHandler` behind `withMcpAuth`, from node:http here). The
// gateway subscribes (the exact events/subscribe params are asserted), answers the callback verification, runs the
// route for each delivery, refreshes before the short TTL runs out, refuses a forged or unsigned delivery with 401,
// and stops refreshing when it stops.
//
// mcp-handler 2.4.0 follows "the experimental MCP Events design sketch" (its own words; modelcontextprotocol/
// experimental-ext-triggers-events), not SEP-3415's final text. The gateway's client sends what both accept and
// reads both answers (packages/gateway/src/mcp-events/upstream-protocol.ts); what this test bridges, in the
// application code mcp-handler leaves to the app and nowhere in the gateway:
// - Callback verification and event delivery are the app's (mcp-handler makes no outbound request). This app's
//   verifyEndpoint POSTs SEP-3415's challenge `{type: "verification", challenge}` signed with the client's secret and
//   wants `{challenge}` back, which is what the gateway's callback answers; its worker posts the occurrence
//   `{eventId, name, timestamp, data, cursor}` signed with the `standardwebhooks` library, `X-MCP-Subscription-Id`.
// - mcp-handler accepts https callbacks only; the gateway listens on http here, so the gateway's public_url is
//   https://hookwise.test and the app's egress sends what is addressed there to the gateway's listener (TLS ends
//   before the gateway, as behind a proxy).
// - mcp-handler clamps the TTL the gateway asks (ttlMs 60000, the least ttl_seconds allows) to ttl.maxMs, set to 3 s
//   here so that the refresh happens within the test.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createMcpHandler,
  experimental_registerMcpEvents,
  experimental_validateMcpEventDelivery,
  withMcpAuth,
  type ExperimentalMcpEventDefinition,
  type ExperimentalMcpWebhookSubscription,
} from 'mcp-handler';
import { fromJsonSchema } from '@modelcontextprotocol/server';
import { Webhook } from 'standardwebhooks';
import { startTestGateway, testProcessEnv, type TestGateway } from '@hookwise/testing';
import { sleep, waitFor } from './mcp-webhooks-harness';

const UPSTREAM_TOKEN = 'upstream-token-0123456789abcdef';
const PUBLIC_URL = 'https://hookwise.test';
const TTL_MS = 3000;

const deploys: ExperimentalMcpEventDefinition = {
  name: 'deploys',
  description: 'A deploy finished',
  inputSchema: fromJsonSchema({ type: 'object', properties: { service: { type: 'string' } }, additionalProperties: false }),
  payloadSchema: fromJsonSchema({
    type: 'object',
    required: ['service', 'env'],
    properties: { service: { type: 'string' }, env: { type: 'string' } },
  }),
  authorize: () => true,
};

/** The app's subscription store (mcp-handler's `subscriptions` adapter), in memory. */
const stored = new Map<string, ExperimentalMcpWebhookSubscription>();
const subscribeCalls: Array<Record<string, unknown>> = [];
const verified: Array<{ id: string; status: number }> = [];
let gw: TestGateway | undefined;

/** The app's egress: https://hookwise.test is the gateway (see the bridge above); nothing else is reachable. */
function egress(url: string): string | undefined {
  return url.startsWith(`${PUBLIC_URL}/`) && gw ? gw.url + url.slice(PUBLIC_URL.length) : undefined;
}

function signedPost(url: string, secret: string, subscriptionId: string, payload: unknown): Promise<Response> {
  const body = JSON.stringify(payload);
  const msgId = `msg_${randomBytes(8).toString('hex')}`;
  const now = new Date();
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/json',
      'webhook-id': msgId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(msgId, now, body),
      'x-mcp-subscription-id': subscriptionId,
    },
    body,
  });
}

const handler = withMcpAuth(
  createMcpHandler(
    (server) =>
      experimental_registerMcpEvents(server, {
        getPrincipal: (authInfo) => `tenant-1:${authInfo.clientId}`,
        events: [deploys],
        subscriptions: {
          prepare: async () => randomUUID(),
          upsert: async (subscription) => {
            stored.set(subscription.id, subscription);
            return { cursor: null, truncated: false };
          },
          remove: async (key) => stored.delete(key.id),
        },
        delivery: {
          async verifyEndpoint(target) {
            const url = egress(target.url);
            if (!url) return { verified: false, reason: 'connection_refused' };
            const challenge = randomBytes(16).toString('base64url');
            const answer = await signedPost(url, target.secret, target.id, { type: 'verification', challenge });
            verified.push({ id: target.id, status: answer.status });
            const echoed = answer.ok ? ((await answer.json()) as { challenge?: unknown }).challenge : undefined;
            return echoed === challenge ? { verified: true } : { verified: false, reason: answer.ok ? 'challenge_failed' : 'http_4xx' };
          },
        },
        ttl: { minMs: 500, defaultMs: TTL_MS, maxMs: TTL_MS },
      }),
    { serverInfo: { name: 'vercel-upstream', version: '1.0.0' } },
  ),
  (_req, token) => (token === UPSTREAM_TOKEN ? { token, clientId: 'hookwise-gateway', scopes: [] } : undefined),
  { required: true },
);

/**
 * Jest runs this file in a VM context of its own, while Node's Request parses JSON into objects of the outer one,
 * which mcp-handler's canonical-JSON check of the arguments (a plain-object prototype test) refuses as "Invalid
 * JSON value" (-32603). Parsing the body here keeps the objects in this context; outside Jest it changes nothing.
 */
function sameRealm(make: () => Request): Request {
  const request = make();
  return Object.assign(request, { json: async () => JSON.parse(await request.text()) as unknown, clone: () => sameRealm(make) });
}

/** node:http to the fetch-style handler and back; records each events/subscribe's params. */
async function serve(req: http.IncomingMessage, res: http.ServerResponse, base: string): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  try {
    const message = JSON.parse(body.toString('utf8')) as { method?: string; params?: Record<string, unknown> };
    if (message.method === 'events/subscribe') subscribeCalls.push(message.params ?? {});
  } catch {
    // Not JSON: the handler answers it.
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  const make = () =>
    new Request(new URL(req.url ?? '/', base), { method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body });
  const response = await handler(sameRealm(make));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) for await (const chunk of response.body) res.write(chunk);
  res.end();
}

/** The app's delivery worker: each current subscription whose arguments match gets the event, signed with its secret. */
async function emit(eventId: string, data: { service: string; env: string }, forge?: 'forged' | 'unsigned'): Promise<number[]> {
  const statuses: number[] = [];
  for (const sub of stored.values()) {
    if (sub.arguments.service !== undefined && sub.arguments.service !== data.service) continue;
    // mcp-handler's own check before dispatch: current, unexpired, payload matching the schema.
    if (
      !(await experimental_validateMcpEventDelivery({ event: deploys, subscription: sub, payload: data }).then(
        () => true,
        () => false,
      ))
    )
      continue;
    const occurrence = { eventId, name: sub.name, timestamp: new Date().toISOString(), data, cursor: `c-${eventId}` };
    const url = egress(sub.url)!;
    if (forge === 'unsigned') {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-mcp-subscription-id': sub.id },
        body: JSON.stringify(occurrence),
      });
      statuses.push(answer.status);
    } else {
      const secret = forge === 'forged' ? `whsec_${randomBytes(32).toString('base64')}` : sub.secret;
      statuses.push((await signedPost(url, secret, sub.id, occurrence)).status);
    }
  }
  return statuses;
}

const configDir = mkdtempSync(join(tmpdir(), 'hookwise-mcp-vercel-'));
let upstream: http.Server;
let upstreamUrl = '';

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    serve(req, res, upstreamUrl).catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  // The route: the upstream's deploys of service api; the least TTL the option allows (mcp-handler grants less).
  const upstreamRoute = {
    source: 'mcp-events',
    source_options: { server: `${upstreamUrl}/mcp`, event: 'deploys', arguments: { service: 'api' }, token_env: 'UPSTREAM_TOKEN', ttl_seconds: 60 },
    prompt: 'deploy of {service} to {env}',
  };
  gw = await startTestGateway({
    configDir,
    config: { platforms: { webhook: { enabled: true, extra: { public_url: PUBLIC_URL, routes: { upstream: upstreamRoute } } } }, store: { backend: 'sqlite' } },
    env: testProcessEnv(configDir, { UPSTREAM_TOKEN }),
    pollMs: 20,
    mcpEvents: { refreshMs: 100 },
  });
});

afterAll(async () => {
  await gw?.stop();
  await new Promise((resolve) => upstream.close(resolve));
  rmSync(configDir, { recursive: true, force: true });
});

describe('source: mcp-events against an mcp-handler 2.4.0 server', () => {
  it('subscribes with params the design sketch requires, and the verified callback gets the events that run the route', async () => {
    await waitFor('the subscription', () => stored.size === 1);
    expect(subscribeCalls[0]).toEqual({
      name: 'deploys',
      arguments: { service: 'api' },
      delivery: { mode: 'webhook', url: `${PUBLIC_URL}/webhooks/upstream`, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+={0,2}$/) },
      ttlMs: 60_000,
      ttl: 60,
    });
    const [sub] = stored.values();
    // mcp-handler's id is derived from the key; the client's secret is the subscription's.
    expect(sub).toMatchObject({
      principal: 'tenant-1:hookwise-gateway',
      name: 'deploys',
      arguments: { service: 'api' },
      url: `${PUBLIC_URL}/webhooks/upstream`,
    });
    expect(sub.id).toMatch(/^sub_[0-9a-f]{64}$/);
    expect(sub.secret).toBe((subscribeCalls[0].delivery as { secret: string }).secret);
    expect(verified).toEqual([{ id: sub.id, status: 200 }]);
    await gw!.waitForLog(`route 'upstream': subscribed to deploys of ${upstreamUrl}/mcp (subscription ${sub.id}`);
    const listed = await gw!.gateway.features.mcpEvents.subscriptionListing();
    expect(listed).toEqual([expect.objectContaining({ kind: 'upstream', id: sub.id, holder: 'upstream', name: 'deploys', expired: false })]);

    const finished: string[] = [];
    const off = gw!.gateway.on('completed', (e) => finished.push(e.jobId));
    try {
      expect(await emit('dep-1', { service: 'api', env: 'prod' })).toEqual([202]);
      expect(await emit('dep-other', { service: 'web', env: 'prod' })).toEqual([]); // not this subscription's arguments
      await waitFor('the route run', () => finished.length === 1);
      const job = await gw!.gateway.store.jobs.get(finished[0]);
      expect(job).toMatchObject({ route: 'upstream', deliveryId: 'dep-1', event: 'deploys', payload: { service: 'api', env: 'prod' } });
      expect(job!.answer).toContain('deploy of api to prod');
      expect(await emit('dep-1', { service: 'api', env: 'prod' })).toEqual([200]); // the same event again: a duplicate
    } finally {
      off();
    }
    expect(gw!.fullLogText()).not.toContain(sub.secret.slice(6));
    expect(gw!.fullLogText()).not.toContain(UPSTREAM_TOKEN);
  });

  it('refuses a forged or unsigned delivery with 401', async () => {
    expect(await emit('dep-forged', { service: 'api', env: 'x' }, 'forged')).toEqual([401]);
    expect(await emit('dep-unsigned', { service: 'api', env: 'x' }, 'unsigned')).toEqual([401]);
    const ids = (await gw!.gateway.store.jobs.list({ route: 'upstream' })).map((j) => j.deliveryId);
    expect(ids).not.toContain('dep-forged');
    expect(ids).not.toContain('dep-unsigned');
  });

  it('refreshes before the granted TTL runs out by subscribing again with the same key and secret', async () => {
    const [first] = stored.values();
    const firstExpiry = Date.parse(first.refreshBefore!);
    const calls = subscribeCalls.length;
    await waitFor('the refresh', () => subscribeCalls.length > calls);
    expect(subscribeCalls[calls]).toEqual(subscribeCalls[0]); // no subscriptionId: mcp-handler answered id
    await gw!.waitForLog(`route 'upstream': refreshed deploys`);
    expect(stored.size).toBe(1);
    expect(Date.parse([...stored.values()][0].refreshBefore!)).toBeGreaterThan(firstExpiry);
    // Past the first grant's end, the subscription lives on.
    await sleep(Math.max(0, firstExpiry - Date.now()) + 300);
    expect(await emit('dep-2', { service: 'api', env: 'staging' })).toEqual([202]);
  });

  it('stops refreshing when the gateway stops, so the upstream lets the subscription expire', async () => {
    await gw!.stop();
    const calls = subscribeCalls.length;
    await sleep(TTL_MS + 300);
    expect(subscribeCalls.length).toBe(calls);
    // The worker's check refuses the expired subscription: nothing is posted.
    expect(await emit('dep-3', { service: 'api', env: 'prod' })).toEqual([]);
    gw = undefined;
  });
});
