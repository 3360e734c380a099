// `hookwise mcp clients` and `hookwise mcp subscriptions`, run as the real CLI process against the config dir of a
// real gateway on SQLite while it runs: the clients with their granted event types (a token never printed, an unset
// variable said), and a client's webhook subscription made over MCP (its secret never printed).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTestGateway, testProcessEnv, type TestGateway } from '@hookwise/testing';
import { runCli } from '../cli-process';

jest.setTimeout(60_000);

const ALICE = 'alice-token-0123456789abcdef';
const configDir = mkdtempSync(join(tmpdir(), 'hookwise-mcp-cli-'));
let gw: TestGateway;
let receiver: http.Server;
let client: Client;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  gw = await startTestGateway({
    configDir,
    config: {
      admin: { enabled: true, token: 'admin-token-0123456789abcdef' },
      mcp: {
        clients: { alice: { token_env: 'MCP_ALICE_TOKEN', events: ['prs'] } },
        webhooks: { allow_loopback: true },
      },
      platforms: {
        webhook: { enabled: true, extra: { routes: { prs: { secret: 'it-is-a-test-secret-0123456789', events: ['pull_request'], prompt: 'x' } } } },
      },
      store: { backend: 'sqlite' },
    },
    files: { '.env': `MCP_ALICE_TOKEN=${ALICE}\n` },
    env: testProcessEnv(configDir),
  });
  client = new Client({ name: 'cli-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ALICE}` } } }));
});

afterAll(async () => {
  await client.close().catch(() => undefined);
  await gw.stop();
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(configDir, { recursive: true, force: true });
});

describe('hookwise mcp', () => {
  it('clients: lists each client with its token variable and the event types it is granted, never the token', async () => {
    const table = await runCli(['mcp', 'clients'], configDir);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/alice\s+MCP_ALICE_TOKEN\s+prs\s+prs, prs\/pull_request/);
    expect(table.stdout + table.stderr).not.toContain(ALICE);
    const json = await runCli(['mcp', 'clients', '--json'], configDir);
    expect(JSON.parse(json.stdout)).toEqual([
      { name: 'alice', tokenEnv: 'MCP_ALICE_TOKEN', tokenSet: true, patterns: ['prs'], types: ['prs', 'prs/pull_request'] },
    ]);
  });

  it('subscriptions: lists a webhook subscription made over MCP while the gateway runs, never its secret', async () => {
    const empty = await runCli(['mcp', 'subscriptions'], configDir);
    expect(empty.stdout).toContain('No MCP subscriptions in the store');
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook?key=abc`;
    const sub = (await client.request(
      { method: 'events/subscribe', params: { name: 'prs', delivery: { mode: 'webhook', url } } },
      ResultSchema,
    )) as unknown as {
      subscriptionId: string;
      secret: string;
    };
    const json = await runCli(['mcp', 'subscriptions', '--json'], configDir);
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(listed).toEqual([
      expect.objectContaining({ kind: 'webhook', id: sub.subscriptionId, holder: 'alice', name: 'prs', url: url.replace('?key=abc', ''), expired: false }),
    ]);
    const table = await runCli(['mcp', 'subscriptions'], configDir);
    expect(table.stdout).toContain(sub.subscriptionId);
    for (const out of [json.stdout, table.stdout]) {
      expect(out).not.toContain(sub.secret.slice(6));
      expect(out).not.toContain('key=abc');
    }
  });
});
