// The MCP Events panel of the dashboard and GET /api/mcp, against a real gateway, a real MCP client of the
// official SDK subscribing by webhook, a real callback receiver and headless Chromium: the clients with what they
// are granted and their token variable, the subscriptions with expiry and callback without its
// query, and per subscription the deliveries since the start, updated on the page without a reload. Never a token
// or a secret; no panel when MCP Events is not configured.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { testProcessEnv, type TestGateway } from '@hookwise/testing';
import { ADMIN_TOKEN, send, startObserved } from './observed-gateway';
import { dashboardPerTest, signIn, step } from '../ui/chromium';

const ALICE = 'alice-token-0123456789abcdef';
const CAROL = 'carol-token-0123456789abcdef';
const ui = dashboardPerTest();
let receiver: http.Server;
let base = '';
const clients: Client[] = [];

/** Echoes verification challenges; /hook takes deliveries, /failing answers them 500. */
beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string; challenge?: string };
      if (parsed.type === 'verification') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: parsed.challenge }));
      else res.writeHead(req.url?.startsWith('/failing') ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await new Promise((resolve) => receiver.close(resolve));
});

function startWithMcp(): Promise<TestGateway> {
  return startObserved(
    {
      admin: { ui: true, token: ADMIN_TOKEN },
      mcp: {
        clients: { alice: { token_env: 'MCP_ALICE_TOKEN', events: ['ci', 'missing-*'] }, carol: { token_env: 'MCP_CAROL_TOKEN', events: ['docs'] } },
        webhooks: { allow_loopback: true },
      },
    },
    { env: testProcessEnv(undefined, { MCP_ALICE_TOKEN: ALICE, MCP_CAROL_TOKEN: CAROL }), mcpEvents: { refreshMs: 100 } },
  );
}

async function subscribe(gw: TestGateway, path: string): Promise<{ subscriptionId: string; secret: string }> {
  const client = new Client({ name: 'panel-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ALICE}` } } }));
  clients.push(client);
  const params = { name: 'ci', delivery: { mode: 'webhook', url: `${base}${path}` }, ttl: 600 };
  return client.request({ method: 'events/subscribe', params }, ResultSchema) as unknown as Promise<{ subscriptionId: string; secret: string }>;
}

interface Overview {
  inUse: boolean;
  clients: Array<{ name: string; tokenEnv: string; tokenSet: boolean; patterns: string[]; types: string[] }>;
  subscriptions: Array<{ kind: string; id: string; holder: string; name: string; url: string; expiresAt: string; deliveries?: Record<string, unknown> }>;
}

async function overview(gw: TestGateway): Promise<{ text: string; body: Overview }> {
  const answer = await fetch(`${gw.url}/api/mcp`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(answer.status).toBe(200);
  const text = await answer.text();
  return { text, body: JSON.parse(text) as Overview };
}

async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const push = (gw: TestGateway, id: string) => send(gw, 'ci', { event_type: 'push', ref: 'main', repository: { name: 'hookwise' } }, { 'x-request-id': id });

describe('MCP Events on the dashboard and the admin API', () => {
  it('GET /api/mcp lists the clients and the webhook subscriptions with their deliveries, without tokens, secrets or callback queries', async () => {
    const gw = ui.stopAfter(await startWithMcp());
    expect((await fetch(`${gw.url}/api/mcp`)).status).toBe(401);
    const good = await subscribe(gw, '/hook?key=callback-query-secret');
    const bad = await subscribe(gw, '/failing');
    expect((await push(gw, 'mcp-api-1')).status).toBe(202);
    await until('a delivery and a give-up', async () => {
      const { body } = await overview(gw);
      const of = (id: string) => body.subscriptions.find((s) => s.id === id)?.deliveries;
      return of(good.subscriptionId)?.delivered === 1 && of(bad.subscriptionId)?.failed === 1;
    });
    const { text, body } = await overview(gw);
    expect(body.inUse).toBe(true);
    expect(body.clients).toEqual([
      { name: 'alice', tokenEnv: 'MCP_ALICE_TOKEN', tokenSet: true, patterns: ['ci', 'missing-*'], types: ['ci', 'ci/push'] },
      { name: 'carol', tokenEnv: 'MCP_CAROL_TOKEN', tokenSet: true, patterns: ['docs'], types: ['docs'] },
    ]);
    expect(body.subscriptions.find((s) => s.id === good.subscriptionId)).toMatchObject({
      kind: 'webhook',
      holder: 'alice',
      name: 'ci',
      url: `${base}/hook`,
      deliveries: { delivered: 1, failed: 0, retried: 0 },
    });
    // retry.max_attempts is 2: one retried attempt, then given up.
    expect(body.subscriptions.find((s) => s.id === bad.subscriptionId)?.deliveries).toMatchObject({
      delivered: 0,
      failed: 1,
      retried: 1,
      lastError: expect.stringContaining('500'),
    });
    expect(Date.parse(body.subscriptions[0].expiresAt)).toBeGreaterThan(Date.now());
    for (const hidden of [ALICE, CAROL, ADMIN_TOKEN, good.secret, bad.secret, 'callback-query-secret']) expect(text).not.toContain(hidden);
  });

  it('shows the panel on /ui and updates the delivery counts without a reload', async () => {
    const gw = ui.stopAfter(await startWithMcp());
    const { page } = ui;
    const sub = await subscribe(gw, '/hook?key=callback-query-secret');
    await signIn(page, gw.url, ADMIN_TOKEN);
    const row = page.locator(`#mcp-subscriptions tr[data-mcp-subscription="${sub.subscriptionId}"]`);
    await step(page, 'mcp-panel', async () => {
      await page.locator('#mcp-clients tr[data-mcp-client="alice"]').waitFor();
      expect(await page.locator('#mcp-clients tr[data-mcp-client="alice"] .types').textContent()).toBe('ci, ci/push');
      expect(await page.locator('#mcp-clients tr[data-mcp-client="carol"]').textContent()).toContain('MCP_CAROL_TOKEN set');
      expect(await row.textContent()).toContain(`${base}/hook`);
      expect(await row.locator('.deliveries').textContent()).toBe('0 delivered, 0 failed');
    });
    await step(page, 'mcp-panel-live', async () => {
      expect((await push(gw, 'mcp-ui-1')).status).toBe(202);
      // The panel is refreshed on its own clock (every 5 s): wait with a locator, no reload.
      await row.locator('.deliveries', { hasText: '1 delivered, 0 failed' }).waitFor({ timeout: 12_000 });
    });
    const html = await page.content();
    for (const hidden of [ALICE, CAROL, ADMIN_TOKEN, sub.secret, 'callback-query-secret']) expect(html).not.toContain(hidden);
  });

  it('has no panel, and /api/mcp says so, when MCP Events is not configured', async () => {
    const gw = ui.stopAfter(await startObserved({ admin: { ui: true, token: ADMIN_TOKEN } }));
    expect((await overview(gw)).body).toEqual({ inUse: false, clients: [], subscriptions: [] });
    const { page } = ui;
    await signIn(page, gw.url, ADMIN_TOKEN);
    await page.locator('#event-rows').waitFor();
    expect(await page.locator('#mcp-events').count()).toBe(0);
  });
});
