// The gateway as an MCP Events server at POST /mcp on the admin listener, with real MCP clients of the official
// SDK: each client lists only the event types it was given, a wrong or missing token is refused, polls return the
// accepted events in order with a cursor that still works after a restart on SQLite, a subscriber's filter narrows
// what it gets, a cursor older than the store's retention is answered truncated, a stream pushes new events, and
// it says list_changed when a subscription route the client's pattern grants comes or goes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResultSchema, type Notification } from '@modelcontextprotocol/sdk/types.js';
import { encodeCursor, updateSubscriptions } from '@hookwise/gateway';
import { signGithub, startTestGateway, testProcessEnv, type TestGateway } from '@hookwise/testing';
import { connectMcpClient } from './mcp-client';

const SECRET = 'it-is-a-test-secret-0123456789';
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';
/** SETTLE_MS of mcp-events.ts and a margin: an event is handed out once it was received this long ago. */
const SETTLED_MS = 1700;

type Poll = { events: Array<{ eventId: string; name: string; timestamp: string; data: Record<string, unknown>; cursor?: unknown }> } & {
  cursor: string;
  truncated: boolean;
  hasMore: boolean;
  resultType: string;
};

const configDir = mkdtempSync(join(tmpdir(), 'hookwise-mcp-events-'));
let gw: TestGateway | undefined;
const clients: Client[] = [];

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await gw?.stop();
  rmSync(configDir, { recursive: true, force: true });
});

function start(): Promise<TestGateway> {
  return startTestGateway({
    configDir,
    config: {
      admin: { enabled: true, token: 'admin-token-0123456789abcdef' },
      mcp: {
        clients: {
          alice: { token_env: 'MCP_ALICE_TOKEN', events: ['prs'] },
          bob: { token_env: 'MCP_BOB_TOKEN', events: ['ci-*'] },
        },
      },
      platforms: {
        webhook: {
          enabled: true,
          extra: {
            routes: {
              prs: { secret: SECRET, events: ['pull_request'], prompt: 'review {action}' },
              'ci-builds': { secret: SECRET, prompt: 'build {status}' },
              private: { secret: SECRET, prompt: 'private' },
            },
          },
        },
      },
      store: { backend: 'sqlite' },
    },
    env: testProcessEnv(configDir, { MCP_ALICE_TOKEN: ALICE, MCP_BOB_TOKEN: BOB }),
    pollMs: 20,
  });
}

const connect = (gateway: TestGateway, token: string): Promise<Client> => connectMcpClient(gateway.url, token, clients);

const poll = (client: Client, params: Record<string, unknown>) => client.request({ method: 'events/poll', params }, ResultSchema) as Promise<Poll>;

async function postPr(gateway: TestGateway, id: string, action: string, number: number): Promise<void> {
  const body = JSON.stringify({ action, number, pull_request: { title: `PR ${number}` } });
  const answer = await gateway.post('prs', body, {
    'x-hub-signature-256': signGithub(SECRET, body),
    'x-github-event': 'pull_request',
    'x-github-delivery': id,
  });
  expect(answer.status).toBe(202);
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLED_MS));

describe('MCP Events server', () => {
  beforeAll(async () => {
    gw = await start();
  });

  it('negotiates the extension and lists only the event types a client was given', async () => {
    const alice = await connect(gw!, ALICE);
    expect(alice.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/events']).toEqual({ listChanged: true });
    const listed = (await alice.request({ method: 'events/list', params: {} }, ResultSchema)) as unknown as {
      events: Array<{ name: string; delivery: string[]; inputSchema: { properties: Record<string, unknown> }; payloadSchema: { type: string } }>;
    };
    expect(listed.events.map((e) => e.name)).toEqual(['prs', 'prs/pull_request']);
    expect(listed.events[0].delivery).toEqual(['poll', 'push', 'webhook']);
    expect(Object.keys(listed.events[0].inputSchema.properties)).toEqual(['filter']);
    expect(listed.events[0].payloadSchema.type).toBe('object');
    // Nothing of a route's secret in what a client reads.
    expect(JSON.stringify(listed)).not.toContain(SECRET);

    const bob = await connect(gw!, BOB);
    const bobs = (await bob.request({ method: 'events/list', params: {} }, ResultSchema)) as unknown as { events: Array<{ name: string }> };
    expect(bobs.events.map((e) => e.name)).toEqual(['ci-builds']);
    // A type the client was not given is answered as if it did not exist.
    await expect(poll(bob, { name: 'prs', cursor: null })).rejects.toMatchObject({ code: -32023 });
    await expect(poll(alice, { name: 'private', cursor: null })).rejects.toMatchObject({ code: -32023 });
  });

  it('refuses a missing or wrong token with 401, and never logs a token', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const send = (headers: Record<string, string>) =>
      fetch(`${gw!.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(init),
      });
    const refused: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer not-a-token-of-anyone-at-all' },
      { authorization: `Bearer ${'admin-token-0123456789abcdef'}` },
      { authorization: ALICE },
    ];
    for (const headers of refused) {
      const answer = await send(headers);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toContain('Bearer');
    }
    await expect(connect(gw!, 'wrong-token-0123456789abcdef')).rejects.toThrow();
    expect((await send({ authorization: `Bearer ${ALICE}` })).status).toBe(200);
    expect(gw!.fullLogText()).not.toContain(ALICE);
    expect(gw!.fullLogText()).not.toContain(BOB);
  });

  it("refuses to start when a client's token variable is not set", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookwise-mcp-events-'));
    try {
      await expect(
        startTestGateway({
          configDir: dir,
          config: {
            admin: { enabled: true },
            mcp: { clients: { carol: { token_env: 'MCP_CAROL_TOKEN', events: ['*'] } } },
            platforms: { webhook: { enabled: true } },
          },
          env: testProcessEnv(dir),
        }),
      ).rejects.toThrow(/mcp\.clients\.carol\.token_env: the environment variable MCP_CAROL_TOKEN is not set/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('polls accepted events in order, with a cursor that works across a restart on SQLite', async () => {
    let alice = await connect(gw!, ALICE);
    const first = await poll(alice, { name: 'prs', arguments: {}, cursor: null });
    expect(first).toMatchObject({ resultType: 'complete', events: [], truncated: false, hasMore: false });
    await postPr(gw!, 'd-1', 'opened', 1);
    await postPr(gw!, 'd-2', 'closed', 2);
    await postPr(gw!, 'd-3', 'opened', 3);
    await settle();
    const second = await poll(alice, { name: 'prs', cursor: first.cursor });
    expect(second.events.map((e) => e.eventId)).toEqual(['d-1', 'd-2', 'd-3']);
    expect(second.events[0]).toMatchObject({ name: 'prs', data: { action: 'opened', number: 1, pull_request: { title: 'PR 1' } } });
    expect(Date.parse(second.events[0].timestamp)).toBeGreaterThan(0);
    // The payload as stored: no headers, no signature, no secret.
    const text = JSON.stringify(second);
    expect(text).not.toContain('x-hub-signature');
    expect(text).not.toContain(SECRET);
    // maxEvents pages through the same events.
    const paged = await poll(alice, { name: 'prs', cursor: first.cursor, maxEvents: 2 });
    expect(paged.events.map((e) => e.eventId)).toEqual(['d-1', 'd-2']);
    expect(paged.hasMore).toBe(true);
    expect((await poll(alice, { name: 'prs', cursor: paged.cursor })).events.map((e) => e.eventId)).toEqual(['d-3']);
    // An event type of one event name.
    expect((await poll(alice, { name: 'prs/pull_request', cursor: first.cursor })).events).toHaveLength(3);

    await gw!.stop();
    gw = await start();
    alice = await connect(gw, ALICE);
    await postPr(gw, 'd-4', 'opened', 4);
    await settle();
    const afterRestart = await poll(alice, { name: 'prs', cursor: second.cursor });
    expect(afterRestart.events.map((e) => e.eventId)).toEqual(['d-4']);
    expect(afterRestart.truncated).toBe(false);
    // Nothing new: the same cursor answers nothing, and the cursor it gives still works.
    const quiet = await poll(alice, { name: 'prs', cursor: afterRestart.cursor });
    expect(quiet.events).toEqual([]);
  });

  it("narrows what a subscriber gets with its filter, checked like a route's", async () => {
    const alice = await connect(gw!, ALICE);
    const from = encodeCursor({ t: Date.now() - 3_600_000, id: '' });
    const opened = await poll(alice, { name: 'prs', arguments: { filter: { path: 'action', equals: 'opened' } }, cursor: from });
    expect(opened.events.map((e) => e.eventId)).toEqual(['d-1', 'd-3', 'd-4']);
    const either = await poll(alice, { name: 'prs', arguments: { filter: [{ any: [{ path: 'number', in: [2, 4] }] }] }, cursor: from });
    expect(either.events.map((e) => e.eventId)).toEqual(['d-2', 'd-4']);
    await expect(poll(alice, { name: 'prs', arguments: { filter: { path: 'action', matches: '(' } }, cursor: from })).rejects.toMatchObject({ code: -32602 });
    await expect(poll(alice, { name: 'prs', arguments: { filter: { expression: 'action = "opened"' } }, cursor: from })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(poll(alice, { name: 'prs', arguments: { filter: { path: 'action', in_file: 'config.yaml' } }, cursor: from })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(poll(alice, { name: 'prs', arguments: { other: 1 }, cursor: from })).rejects.toMatchObject({ code: -32602 });
    await expect(poll(alice, { name: 'prs', cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: -32602 });
    // A subscribe without a delivery mode (webhook delivery: mcp-webhooks.test.ts).
    await expect(alice.request({ method: 'events/subscribe', params: { name: 'prs' } }, ResultSchema)).rejects.toMatchObject({ code: -32602 });
  });

  it('answers truncated when the cursor is older than store.retention keeps events', async () => {
    const alice = await connect(gw!, ALICE);
    const stale = encodeCursor({ t: Date.now() - 8 * 86_400_000, id: '' });
    const answer = await poll(alice, { name: 'prs', cursor: stale });
    expect(answer.truncated).toBe(true);
    // Delivery goes on from what the store still holds.
    expect(answer.events.map((e) => e.eventId)).toEqual(['d-1', 'd-2', 'd-3', 'd-4']);
    expect((await poll(alice, { name: 'prs', cursor: answer.cursor })).truncated).toBe(false);
    // maxAgeMs bounds replay the same way.
    const recent = await poll(alice, { name: 'prs', cursor: encodeCursor({ t: Date.now() - 3_600_000, id: '' }), maxAgeMs: 1 });
    expect(recent).toMatchObject({ truncated: true, events: [] });
  });

  it('pushes new events on an events/stream request', async () => {
    const alice = await connect(gw!, ALICE);
    const notices: Notification[] = [];
    alice.fallbackNotificationHandler = async (notice) => {
      notices.push(notice);
    };
    const controller = new AbortController();
    const streaming = alice
      .request({ method: 'events/stream', params: { name: 'prs', arguments: { filter: { path: 'action', equals: 'opened' } }, cursor: null } }, ResultSchema, {
        signal: controller.signal,
        timeout: 60_000,
      })
      .catch(() => undefined);
    const until = async (check: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`no such notification; got ${JSON.stringify(notices)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    await until(() => notices.some((n) => n.method === 'notifications/events/active'));
    await postPr(gw!, 'd-5', 'closed', 5);
    await postPr(gw!, 'd-6', 'opened', 6);
    await until(() => notices.some((n) => n.method === 'notifications/events/event'));
    await new Promise((r) => setTimeout(r, 300));
    const pushed = notices.filter((n) => n.method === 'notifications/events/event').map((n) => n.params as Record<string, unknown>);
    expect(pushed.map((p) => p.eventId)).toEqual(['d-6']);
    expect(pushed[0]).toMatchObject({ name: 'prs', data: { action: 'opened', number: 6 } });
    expect(typeof pushed[0].cursor).toBe('string');
    expect((pushed[0]._meta as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId']).toBeDefined();
    controller.abort();
    await streaming;
    // The pushed cursor is a poll cursor too.
    expect((await poll(alice, { name: 'prs', cursor: pushed[0].cursor })).events).toEqual([]);
  });

  it('sends notifications/events/list_changed on an open stream when a granted subscription route is added or removed', async () => {
    const bob = await connect(gw!, BOB);
    const notices: Notification[] = [];
    bob.fallbackNotificationHandler = async (notice) => {
      notices.push(notice);
    };
    const changes = () => notices.filter((n) => n.method === 'notifications/events/list_changed');
    const until = async (what: string, check: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(notices)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    const names = async () =>
      ((await bob.request({ method: 'events/list', params: {} }, ResultSchema)) as unknown as { events: Array<{ name: string }> }).events.map((e) => e.name);
    const controller = new AbortController();
    const streaming = bob
      .request({ method: 'events/stream', params: { name: 'ci-builds', cursor: null } }, ResultSchema, { signal: controller.signal, timeout: 60_000 })
      .catch(() => undefined);
    await until('active', () => notices.some((n) => n.method === 'notifications/events/active'));
    const at = new Date().toISOString();
    const entry = { events: [], skills: [], secret: SECRET, prompt: 'deploy {env}', deliver: 'log', deliver_extra: {}, created_at: at, updated_at: at };
    // A route bob's `ci-*` does not grant: his list is the same, so nothing is sent.
    await updateSubscriptions(configDir, (entries) => {
      entries['nightly'] = entry as never;
    });
    await new Promise((r) => setTimeout(r, 2500));
    expect(changes()).toEqual([]);

    await updateSubscriptions(configDir, (entries) => {
      entries['ci-deploys'] = entry as never;
    });
    await until('list_changed after the route was added', () => changes().length === 1);
    // No params of its own: only the stream's subscription id, as on every notification of the stream.
    expect(Object.keys(changes()[0].params ?? {})).toEqual(['_meta']);
    expect(await names()).toEqual(['ci-builds', 'ci-deploys']);

    await updateSubscriptions(configDir, (entries) => {
      delete entries['ci-deploys'];
    });
    await until('list_changed after the route was removed', () => changes().length === 2);
    expect(await names()).toEqual(['ci-builds']);
    controller.abort();
    await streaming;
  });
});
