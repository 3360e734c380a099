// Resuming from a cursor: an MCP Events client that was away while 100 events came gets each of them exactly once,
// in order, from the cursor it held: after the gateway restarted on SQLite (half the events before the restart,
// half after), and from another gateway sharing one Redis (the events posted to both). Official MCP SDK client.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { signGithub, startRedisServer, startTestGateway, testProcessEnv, type RunningRedis, type TestGateway } from '@hookwise/testing';

jest.setTimeout(120_000);

const SECRET = 'it-is-a-test-secret-0123456789';
const TOKEN = 'resume-token-0123456789abcdef';
/** SETTLE_MS of mcp-events.ts and a margin: an event is handed out once it was received this long ago. */
const SETTLED_MS = 1700;
const EVENTS = 100;

type Poll = { events: Array<{ eventId: string }>; cursor: string; hasMore: boolean; truncated: boolean };

const dirs: string[] = [];
const running: TestGateway[] = [];
const clients: Client[] = [];
let redis: RunningRedis | undefined;

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const gw of running.splice(0)) await gw.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(async () => {
  await redis?.stop();
});

function start(configDir: string, store: Record<string, unknown>): Promise<TestGateway> {
  return startTestGateway({
    configDir,
    config: {
      admin: { enabled: true, token: 'admin-token-0123456789abcdef' },
      mcp: { clients: { watcher: { token_env: 'MCP_WATCHER_TOKEN', events: ['prs'] } } },
      platforms: { webhook: { enabled: true, extra: { rate_limit: 10_000, routes: { prs: { secret: SECRET, prompt: 'review {action}' } } } } },
      store,
    },
    env: testProcessEnv(configDir, { MCP_WATCHER_TOKEN: TOKEN }),
    pollMs: 20,
  }).then((gw) => {
    running.push(gw);
    return gw;
  });
}

async function stop(gw: TestGateway): Promise<void> {
  running.splice(running.indexOf(gw), 1);
  await gw.stop();
}

async function connect(gw: TestGateway): Promise<Client> {
  const client = new Client({ name: 'resume-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  clients.push(client);
  return client;
}

const poll = (client: Client, params: Record<string, unknown>) => client.request({ method: 'events/poll', params }, ResultSchema) as Promise<Poll>;

async function post(gw: TestGateway, n: number): Promise<void> {
  const body = JSON.stringify({ action: 'opened', number: n });
  const answer = await gw.post('prs', body, {
    'x-hub-signature-256': signGithub(SECRET, body),
    'x-github-event': 'pull_request',
    'x-github-delivery': `d-${n}`,
  });
  expect(answer.status).toBe(202);
}

/** Every event from `cursor` on, page by page (30 at a time), and the cursor after the last. */
async function drain(client: Client, cursor: string): Promise<{ ids: string[]; cursor: string }> {
  const ids: string[] = [];
  for (let page = 0; page < 20; page += 1) {
    const answer = await poll(client, { name: 'prs', cursor, maxEvents: 30 });
    expect(answer.truncated).toBe(false);
    ids.push(...answer.events.map((e) => e.eventId));
    cursor = answer.cursor;
    if (!answer.hasMore) return { ids, cursor };
  }
  throw new Error('more than 20 pages');
}

const expected = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `d-${from + i}`);
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLED_MS));

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookwise-mcp-resume-'));
  dirs.push(dir);
  return dir;
}

it('hands a client that was away during 100 events each of them once from its cursor, after a restart on SQLite', async () => {
  const dir = tempDir();
  let gw = await start(dir, { backend: 'sqlite' });
  const { cursor } = await poll(await connect(gw), { name: 'prs', cursor: null });
  for (let n = 1; n <= EVENTS / 2; n += 1) await post(gw, n);
  await stop(gw);
  gw = await start(dir, { backend: 'sqlite' });
  for (let n = EVENTS / 2 + 1; n <= EVENTS; n += 1) await post(gw, n);
  await settle();
  const client = await connect(gw);
  const away = await drain(client, cursor);
  expect(away.ids).toEqual(expected(1, EVENTS));
  // The cursor after the last goes on from there: one more event, and only it.
  await post(gw, EVENTS + 1);
  await settle();
  expect((await drain(client, away.cursor)).ids).toEqual([`d-${EVENTS + 1}`]);
});

it('hands a client the 100 events two gateways on one Redis took, each once, from either gateway', async () => {
  redis ??= await startRedisServer();
  const store = { backend: 'redis', url: redis.url, prefix: 'mcp-resume' };
  const [one, two] = [await start(tempDir(), store), await start(tempDir(), store)];
  const { cursor } = await poll(await connect(one), { name: 'prs', cursor: null });
  for (let n = 1; n <= EVENTS; n += 1) await post(n % 2 ? one : two, n);
  await settle();
  const fromTwo = await drain(await connect(two), cursor);
  expect([...fromTwo.ids].sort()).toEqual(expected(1, EVENTS).sort());
  expect(new Set(fromTwo.ids).size).toBe(EVENTS);
  // The cursor gateway two gave works on gateway one.
  await post(one, EVENTS + 1);
  await settle();
  expect((await drain(await connect(one), fromTwo.cursor)).ids).toEqual([`d-${EVENTS + 1}`]);
});
