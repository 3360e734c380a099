// What never leaves through MCP Events, against a real gateway on SQLite, real MCP clients of the official SDK and a
// real HTTP receiver (deliveries checked with `standardwebhooks`): a route's `mcp_private_fields` are taken out of
// `data` in events/poll, events/stream and webhook deliveries, a subscriber's filter tests the data it would get (so
// it cannot probe a withheld field or a secret), payloadSchema names the withheld fields, and the route's own secret
// and a credential-named variable of the gateway's environment arrive scrubbed, the JSON still valid.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema, type Notification } from '@modelcontextprotocol/sdk/types.js';
import { Webhook } from 'standardwebhooks';
import { signGithub, startRecordingServer, startTestGateway, testProcessEnv, type RecordingServer, type TestGateway } from '@hookwise/testing';

const SECRET = 'private-fields-route-secret-0123456789';
const ALICE = 'alice-token-0123456789abcdef';
// Only in the gateway's environment, under a credential name: registered nowhere else.
const ENV_ONLY = { LEAK_API_KEY: 'env-only-leak-key+93be07/c4d8e1' };
const PRIVATE = ['user.email', 'commits.*.author.email', 'internal'];

type Occurrence = { eventId: string; name: string; timestamp: string; data: Record<string, unknown>; cursor?: string };
type Poll = { events: Occurrence[]; cursor: string };
type Schema = Record<string, unknown>;
/** The value down a chain of keys of a schema. */
const at = (schema: unknown, ...keys: string[]): unknown => keys.reduce((node, key) => (node as Schema | undefined)?.[key], schema);

const configDir = mkdtempSync(join(tmpdir(), 'hookwise-mcp-private-'));
let receiver: RecordingServer;
let gw: TestGateway | undefined;
const clients: Client[] = [];
let sent = 0;

/** A payload with private fields and both secrets in text, in base64, and deeper than a shallow scrubber looks. */
function payload(action: string): Record<string, unknown> {
  return {
    action,
    user: { login: 'octo', email: 'octo@example.com' },
    commits: [
      { id: 'c1', author: { name: 'Ada', email: 'ada@example.com' } },
      { id: 'c2', author: { name: 'Bob', email: 'bob@example.com' } },
    ],
    internal: { note: 'ops only' },
    body: `route secret ${SECRET} and env key ${ENV_ONLY.LEAK_API_KEY}`,
    encoded: Buffer.from(ENV_ONLY.LEAK_API_KEY).toString('base64'),
    deep: { a: { b: { c: { d: { e: { f: { g: { h: [SECRET] } } } } } } } },
    [`key-${SECRET}`]: 'a secret in a key',
  };
}

async function post(action: string): Promise<string> {
  const id = `pf-${++sent}`;
  const body = JSON.stringify(payload(action));
  const answer = await gw!.post('prs', body, { 'x-hub-signature-256': signGithub(SECRET, body), 'x-github-event': 'pull_request', 'x-github-delivery': id });
  expect(answer.status).toBe(202);
  return id;
}

/** What every way out must hold: no private field, no form of a secret, the rest intact. */
function expectWithheldAndScrubbed(occurrence: Occurrence): void {
  const text = JSON.stringify(occurrence);
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(ENV_ONLY.LEAK_API_KEY);
  expect(text).not.toContain(Buffer.from(ENV_ONLY.LEAK_API_KEY).toString('base64'));
  expect(text).not.toContain('@example.com');
  expect(text).not.toContain('ops only');
  const data = occurrence.data;
  expect(data.user).toEqual({ login: 'octo' });
  expect(data.commits).toEqual([
    { id: 'c1', author: { name: 'Ada' } },
    { id: 'c2', author: { name: 'Bob' } },
  ]);
  expect(data).not.toHaveProperty('internal');
  expect(data.body).toBe('route secret [REDACTED] and env key [REDACTED]');
  expect(data.encoded).toBe('[REDACTED]');
  expect(JSON.stringify(data.deep)).toContain('"h":["[REDACTED]"]');
  expect(data['key-[REDACTED]']).toBe('a secret in a key');
}

async function connect(): Promise<Client> {
  const client = new Client({ name: 'private-fields-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw!.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ALICE}` } } }));
  clients.push(client);
  return client;
}

const call = <T>(client: Client, method: string, params: Record<string, unknown>) => client.request({ method, params }, ResultSchema) as unknown as Promise<T>;

async function waitFor(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Polls from `cursor` until `eventId` has settled (or the answer is final without it), with `filter`. */
async function pollFor(client: Client, cursor: string, eventId: string, filter?: unknown): Promise<Occurrence[]> {
  const args = filter === undefined ? {} : { arguments: { filter } };
  const until = Date.now() + 2500;
  for (;;) {
    const page = await call<Poll>(client, 'events/poll', { name: 'prs', cursor, ...args });
    if (page.events.some((e) => e.eventId === eventId) || Date.now() > until) return page.events;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  // The subscriber's callback: echoes the verification challenge, takes deliveries.
  receiver = await startRecordingServer((req) => {
    const parsed = req.json as { type?: string; challenge?: string };
    return parsed.type === 'verification' ? { json: { challenge: parsed.challenge } } : { status: 204 };
  });
  gw = await startTestGateway({
    configDir,
    config: {
      admin: { enabled: true, token: 'admin-token-0123456789abcdef' },
      mcp: { clients: { alice: { token_env: 'MCP_ALICE_TOKEN', events: ['prs', 'plain'] } }, webhooks: { allow_loopback: true } },
      platforms: {
        webhook: {
          enabled: true,
          extra: {
            routes: {
              prs: { secret: SECRET, events: ['pull_request'], mcp_private_fields: PRIVATE, prompt: 'review {action}' },
              plain: { secret: SECRET, prompt: 'build {status}' },
            },
          },
        },
      },
      store: { backend: 'sqlite' },
    },
    env: testProcessEnv(configDir, { MCP_ALICE_TOKEN: ALICE, ...ENV_ONLY }),
    pollMs: 20,
    mcpEvents: { refreshMs: 100 },
  });
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await gw?.stop();
  await receiver?.close();
  rmSync(configDir, { recursive: true, force: true });
});

describe('MCP Events: private fields and secrets never leave', () => {
  it('names the withheld fields in payloadSchema of the route’s types (each one a property that must be absent)', async () => {
    const alice = await connect();
    const { events } = await call<{ events: Array<{ name: string; payloadSchema: Schema }> }>(alice, 'events/list', {});
    const prs = events.find((e) => e.name === 'prs')!.payloadSchema;
    expect(events.find((e) => e.name === 'prs/pull_request')!.payloadSchema).toEqual(prs);
    expect(prs.type).toBe('object');
    for (const path of PRIVATE) expect(prs.description).toContain(path);
    expect(at(prs, 'properties', 'user', 'properties', 'email')).toBe(false);
    expect(at(prs, 'properties', 'internal')).toBe(false);
    expect(at(prs, 'properties', 'commits', 'items', 'properties', 'author', 'properties', 'email')).toBe(false);
    expect(at(prs, 'properties', 'commits', 'patternProperties', '', 'properties', 'author', 'properties', 'email')).toBe(false);
    expect(events.find((e) => e.name === 'plain')!.payloadSchema).toEqual({ type: 'object', additionalProperties: true });
  });

  it('events/poll: the event comes without the private fields, its secrets scrubbed', async () => {
    const alice = await connect();
    const { cursor } = await call<Poll>(alice, 'events/poll', { name: 'prs', cursor: null });
    const id = await post('opened');
    const events = await pollFor(alice, cursor, id);
    expect(events.map((e) => e.eventId)).toContain(id);
    expectWithheldAndScrubbed(events.find((e) => e.eventId === id)!);
  });

  it('a filter on a private path sees the field as absent, and one on a secret sees it scrubbed: neither can probe', async () => {
    const alice = await connect();
    const { cursor } = await call<Poll>(alice, 'events/poll', { name: 'prs', cursor: null });
    const id = await post('probed');
    // The event settled: an unfiltered poll gets it.
    expect((await pollFor(alice, cursor, id)).map((e) => e.eventId)).toContain(id);
    const seen = async (filter: unknown) => (await pollFor(alice, cursor, id, filter)).map((e) => e.eventId).filter((e) => e === id);
    expect(await seen({ path: 'user.email', exists: true })).toEqual([]);
    expect(await seen({ path: 'user.email', equals: 'octo@example.com' })).toEqual([]);
    expect(await seen({ path: 'commits.0.author.email', matches: '^ada' })).toEqual([]);
    expect(await seen({ path: 'internal', exists: true })).toEqual([]);
    expect(await seen({ path: 'body', contains: SECRET })).toEqual([]);
    expect(await seen({ path: 'user.email', missing: true })).toEqual([id]);
    expect(await seen({ path: 'user.login', equals: 'octo' })).toEqual([id]);
  });

  it('events/stream: the pushed event comes without the private fields, its secrets scrubbed', async () => {
    const alice = await connect();
    const notices: Notification[] = [];
    alice.fallbackNotificationHandler = async (notice) => {
      notices.push(notice);
    };
    const controller = new AbortController();
    const streaming = alice
      .request({ method: 'events/stream', params: { name: 'prs', cursor: null } }, ResultSchema, { signal: controller.signal, timeout: 60_000 })
      .catch(() => undefined);
    await waitFor('active', () => notices.some((n) => n.method === 'notifications/events/active'));
    const id = await post('streamed');
    const pushed = () => notices.filter((n) => n.method === 'notifications/events/event').map((n) => n.params as unknown as Occurrence);
    await waitFor('the pushed event', () => pushed().some((e) => e.eventId === id));
    expectWithheldAndScrubbed(pushed().find((e) => e.eventId === id)!);
    controller.abort();
    await streaming;
  });

  it('webhook delivery: the signed body comes without the private fields, its secrets scrubbed, valid JSON', async () => {
    const alice = await connect();
    const sub = await call<{ subscriptionId: string; secret: string }>(alice, 'events/subscribe', {
      name: 'prs',
      delivery: { mode: 'webhook', url: `${receiver.url}/hook` },
      ttl: 600,
    });
    const id = await post('delivered');
    const mine = () => receiver.requests.find((r) => r.body.includes(`"${id}"`));
    await waitFor('the delivery', () => mine() !== undefined);
    const { headers, body } = mine()!;
    const verified = new Webhook(sub.secret).verify(body, headers as Record<string, string>) as Occurrence;
    expect(verified.eventId).toBe(id);
    expectWithheldAndScrubbed(verified);
    await call(alice, 'events/unsubscribe', { subscriptionId: sub.subscriptionId });
  });
});
