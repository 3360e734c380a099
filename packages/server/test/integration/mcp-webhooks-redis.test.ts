// MCP Events webhook subscriptions shared by two gateways on one real redis-server: a subscription made on one
// gateway gets the events the other accepts, each posted once (the store's outbox), and an unsubscribe on the
// other gateway ends it for both.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Webhook } from 'standardwebhooks';
import { signGithub, startRedisServer, startTestGateway, testProcessEnv, type RunningRedis, type TestGateway } from '@hookwise/testing';

const SECRET = 'it-is-a-test-secret-0123456789';
const ALICE = 'alice-token-0123456789abcdef';

const dirs: string[] = [];
const gateways: TestGateway[] = [];
const clients: Client[] = [];
const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
let receiver: http.Server;
let redis: RunningRedis;

function start(url: string): Promise<TestGateway> {
  const configDir = mkdtempSync(join(tmpdir(), 'hookwise-mcp-redis-'));
  dirs.push(configDir);
  return startTestGateway({
    configDir,
    config: {
      admin: { enabled: true, token: 'admin-token-0123456789abcdef' },
      mcp: { clients: { alice: { token_env: 'MCP_ALICE_TOKEN', events: ['prs'] } }, webhooks: { allow_loopback: true } },
      platforms: { webhook: { enabled: true, extra: { routes: { prs: { secret: SECRET, prompt: 'review {action}' } } } } },
      store: { backend: 'redis', url, prefix: 'mcp-webhooks' },
    },
    env: testProcessEnv(configDir, { MCP_ALICE_TOKEN: ALICE }),
    pollMs: 20,
    mcpEvents: { refreshMs: 100 },
  });
}

async function connect(gw: TestGateway): Promise<Client> {
  const client = new Client({ name: 'redis-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ALICE}` } } }));
  clients.push(client);
  return client;
}

async function post(gw: TestGateway, id: string): Promise<void> {
  const body = JSON.stringify({ action: 'opened' });
  const answer = await gw.post('prs', body, { 'x-hub-signature-256': signGithub(SECRET, body), 'x-github-event': 'pull_request', 'x-github-delivery': id });
  expect(answer.status).toBe(202);
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  redis = await startRedisServer();
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as { type?: string; challenge?: string };
      if (parsed.type === 'verification') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(parsed.challenge);
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  gateways.push(await start(redis.url), await start(redis.url));
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  for (const gw of gateways) await gw.stop();
  await new Promise((resolve) => receiver.close(resolve));
  await redis.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

it('a subscription made on one gateway gets the events another accepts, once each, until it is ended on either', async () => {
  const [a, b] = gateways;
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const sub = (await (
    await connect(a)
  ).request({ method: 'events/subscribe', params: { name: 'prs', delivery: { mode: 'webhook', url } } }, ResultSchema)) as unknown as {
    subscriptionId: string;
    secret: string;
  };
  await wait(400); // b reads the subscriptions from the store every 100 ms here (5 s by default)
  await post(b, 'r-1');
  await post(a, 'r-2');
  const until = Date.now() + 8000;
  while (received.length < 2 && Date.now() < until) await wait(20);
  await wait(500);
  const ids = received.map((r) => (new Webhook(sub.secret).verify(r.body, r.headers as Record<string, string>) as { eventId: string }).eventId);
  expect(ids.sort()).toEqual(['r-1', 'r-2']);

  await (await connect(b)).request({ method: 'events/unsubscribe', params: { subscriptionId: sub.subscriptionId } }, ResultSchema);
  await wait(400);
  await post(a, 'r-3');
  await wait(600);
  expect(received).toHaveLength(2);
});
