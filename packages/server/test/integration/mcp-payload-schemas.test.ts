// events/list's payloadSchema over real HTTP with the official MCP SDK client: a route's event types carry its
// source's schema (the per-event one for `<route>/<event>`, the source's envelope for the route itself), a route with
// a transform the generic object (data is the transform's output), a route with mcp_private_fields the source's
// schema with the withheld paths marked; and a posted documented payload, polled back, is valid against the schema
// its type lists.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { githubFixture, payloadSchemaValidator, signGithub, startTestGateway, testProcessEnv, type TestGateway } from '@hookwise/testing';
import { githubPayloadSchema as github } from '@hookwise/plugin-source-github';
import { connectMcpClient, mcpCall } from './mcp-client';

const SECRET = 'it-is-a-test-secret-0123456789';
const ALICE = 'alice-token-0123456789abcdef';
const GENERIC = { type: 'object', additionalProperties: true };
/** SETTLE_MS of mcp-events.ts and a margin: an event is handed out once it was received this long ago. */
const SETTLED_MS = 1700;

type Schema = Record<string, unknown>;
type Listed = { events: Array<{ name: string; payloadSchema: Schema }> };
type Poll = { events: Array<{ eventId: string; data: Record<string, unknown> }>; cursor: string };

const events = github.events!;
const configDir = mkdtempSync(join(tmpdir(), 'hookwise-mcp-schemas-'));
const clients: Client[] = [];
let gw: TestGateway | undefined;

beforeAll(async () => {
  const route = { source: 'github', secret: SECRET, prompt: 'review {action}' };
  gw = await startTestGateway({
    configDir,
    config: {
      admin: { enabled: true, token: 'admin-token-0123456789abcdef' },
      mcp: { clients: { alice: { token_env: 'MCP_ALICE_TOKEN', events: ['*'] } } },
      platforms: {
        webhook: {
          enabled: true,
          extra: {
            routes: {
              prs: { ...route, events: ['pull_request', 'push', 'deployment'] },
              shaped: { ...route, events: ['pull_request'], transform: { expression: '{"title": pull_request.title}' } },
              guarded: { ...route, events: ['pull_request'], mcp_private_fields: ['sender', 'pull_request.user.email'] },
              any: { secret: SECRET, prompt: 'any' },
              // GitLab names its events `Merge Request Hook`: listed either way, the type is <route>/merge_request.
              gl: { source: 'gitlab', secret: SECRET, prompt: 'mr', events: ['merge_request', 'Note Hook'] },
            },
          },
        },
      },
      store: { backend: 'sqlite' },
    },
    env: testProcessEnv(configDir, { MCP_ALICE_TOKEN: ALICE }),
    pollMs: 20,
  });
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await gw?.stop();
  rmSync(configDir, { recursive: true, force: true });
});

async function listed(): Promise<Map<string, Schema>> {
  const alice = await connectMcpClient(gw!.url, ALICE, clients);
  const { events } = await mcpCall<Listed>(alice, 'events/list', {});
  return new Map(events.map((e) => [e.name, e.payloadSchema]));
}

describe("events/list: a route's payloadSchema is its source's", () => {
  it('gives <route>/pull_request the pull_request schema, the route its envelope, an event without its own schema the envelope', async () => {
    const schemas = await listed();
    expect(schemas.get('prs/pull_request')).toEqual(events.pull_request);
    expect(schemas.get('prs/push')).toEqual(events.push);
    expect(schemas.get('prs/deployment')).toEqual(github.envelope);
    expect(schemas.get('prs')).toEqual(github.envelope);
    expect(schemas.get('prs/pull_request')).toMatchObject({ required: expect.arrayContaining(['pull_request', 'number']), additionalProperties: true });
  });

  it('gives a route with a transform the generic object (data is the transform output), and a route that pins no source too', async () => {
    const schemas = await listed();
    expect(schemas.get('shaped')).toEqual(GENERIC);
    expect(schemas.get('shaped/pull_request')).toEqual(GENERIC);
    expect(schemas.get('any')).toEqual(GENERIC);
  });

  it("marks a route's mcp_private_fields on its source's schema, which stays the plugin's own elsewhere", async () => {
    const schemas = await listed();
    const guarded = schemas.get('guarded/pull_request')!;
    // A withheld field the sender always sends is no longer required: the data a client gets lacks it.
    expect(guarded.required).toEqual(['action', 'number', 'pull_request', 'repository']);
    expect(events.pull_request.required).toContain('sender');
    expect(guarded.description).toContain(events.pull_request.description as string);
    expect(guarded.description).toContain('sender, pull_request.user.email');
    const properties = guarded.properties as Record<string, Schema | false>;
    expect(properties.sender).toBe(false);
    expect(properties.number).toEqual({ type: 'integer', description: 'The pull request number' });
    expect(properties.pull_request).toMatchObject({ type: 'object', properties: { user: { properties: { email: false } } } });
    // The plugin's schema was copied, not marked: another route still lists it as it is.
    expect(schemas.get('prs/pull_request')).toEqual(events.pull_request);
    expect((events.pull_request.properties as Schema).sender).toEqual({ type: 'object', description: 'The user that triggered the event' });
  });

  it('a documented pull_request, polled back, is valid against the schema its type lists', async () => {
    const alice = await connectMcpClient(gw!.url, ALICE, clients);
    const schemas = await listed();
    const { cursor } = await mcpCall<Poll>(alice, 'events/poll', { name: 'prs/pull_request', cursor: null });
    const body = githubFixture('pull_request.opened');
    const headers = { 'x-hub-signature-256': signGithub(SECRET, body), 'x-github-event': 'pull_request', 'x-github-delivery': 'schema-pr-1' };
    expect((await gw!.post('prs', body, headers)).status).toBe(202);
    expect((await gw!.post('guarded', body, { ...headers, 'x-github-delivery': 'schema-pr-2' })).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, SETTLED_MS));
    const polled = await mcpCall<Poll>(alice, 'events/poll', { name: 'prs/pull_request', cursor });
    expect(polled.events.map((e) => e.eventId)).toEqual(['schema-pr-1']);
    expect(payloadSchemaValidator(schemas.get('prs/pull_request')!)(polled.events[0].data)).toBeNull();
    const guarded = await mcpCall<Poll>(alice, 'events/poll', { name: 'guarded/pull_request', cursor });
    expect(guarded.events[0].data).not.toHaveProperty('sender');
    expect(payloadSchemaValidator(schemas.get('guarded/pull_request')!)(guarded.events[0].data)).toBeNull();
    // The same payload with what the route withholds is refused by that schema.
    expect(payloadSchemaValidator(schemas.get('guarded/pull_request')!)(JSON.parse(body.toString('utf8')))).not.toBeNull();
  });
  it("offers GitLab's events under their normalised names, with their schemas, and polls their jobs", async () => {
    const schemas = await listed();
    expect(schemas.get('gl/merge_request')?.description).toMatch(/^A GitLab merge request event/);
    expect(schemas.get('gl/note')?.description).toMatch(/^A GitLab comment event/);
    expect(schemas.get('gl')?.description).toMatch(/^A GitLab webhook payload/);
    const alice = await connectMcpClient(gw!.url, ALICE, clients);
    const { cursor } = await mcpCall<Poll>(alice, 'events/poll', { name: 'gl/merge_request', cursor: null });
    const body = JSON.stringify({ object_kind: 'merge_request', event_type: 'merge_request', object_attributes: { iid: 1, action: 'open' } });
    const headers = { 'x-gitlab-token': SECRET, 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-event-uuid': 'schema-mr-1' };
    expect((await gw!.post('gl', body, headers)).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, SETTLED_MS));
    const polled = await mcpCall<Poll>(alice, 'events/poll', { name: 'gl/merge_request', cursor });
    expect(polled.events.map((e) => e.eventId)).toEqual(['schema-mr-1']);
    expect(payloadSchemaValidator(schemas.get('gl/merge_request')!)(polled.events[0].data)).toBeNull();
    expect((await mcpCall<Poll>(alice, 'events/poll', { name: 'gl/note', cursor })).events).toEqual([]);
  });
});
