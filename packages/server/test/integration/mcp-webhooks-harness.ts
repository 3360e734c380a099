// What the tests of the MCP Events server's webhook delivery share: a real HTTP receiver (it echoes the callback
// verification's challenge and records deliveries), a real gateway on SQLite with two MCP clients (alice: route
// prs; bob: ci-*), clients of the official MCP SDK over Streamable HTTP, and signed GitHub posts to route prs.
// Each test file makes its own harness (its own config dir, receiver and gateway).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { signGithub, startTestGateway, testProcessEnv, type TestGateway } from '@hookwise/testing';

export const SECRET = 'it-is-a-test-secret-0123456789';
export const ALICE = 'alice-token-0123456789abcdef';
export const BOB = 'bob-token-0123456789abcdef';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** An events/subscribe answer as it comes over the wire (both readings' names). */
export interface Subscribed {
  resultType: 'complete';
  subscriptionId: string;
  secret: string;
  expiresAt: string;
  ttl: number;
  id: string;
  refreshBefore: string;
  cursor: string;
  truncated: boolean;
}

export const call = <T>(client: Client, method: string, params: Record<string, unknown>) =>
  client.request({ method, params }, ResultSchema) as unknown as Promise<T>;
export const subscribe = (client: Client, params: Record<string, unknown>) => call<Subscribed>(client, 'events/subscribe', params);
export const bodyOf = (r: Received) =>
  JSON.parse(r.body) as { eventId: string; name: string; timestamp: string; data: Record<string, unknown>; cursor: string };
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor(what: string, check: () => boolean, ms = 8000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export class WebhooksHarness {
  readonly received: Received[] = [];
  readonly verifications: Received[] = [];
  /** The receiver's base URL, e.g. http://127.0.0.1:1234. */
  base = '';
  gw: TestGateway | undefined;
  /** Added to the gateway's MCP Events clock (expiry tests). */
  offsetMs = 0;
  private receiver: http.Server | undefined;
  private readonly clients: Client[] = [];
  readonly configDir: string;

  constructor(prefix: string) {
    this.configDir = mkdtempSync(join(tmpdir(), prefix));
  }

  /** Starts the receiver and the gateway (call in beforeAll). */
  async setUp(): Promise<void> {
    await this.startReceiver();
    this.gw = await this.start();
  }

  async tearDown(): Promise<void> {
    for (const client of this.clients) await client.close().catch(() => undefined);
    await this.gw?.stop();
    if (this.receiver) await new Promise((resolve) => this.receiver!.close(resolve));
    rmSync(this.configDir, { recursive: true, force: true });
  }

  /** Stops the gateway and starts it again on the same store. */
  async restart(): Promise<void> {
    await this.gw!.stop();
    this.gw = await this.start();
  }

  async connect(token: string): Promise<Client> {
    const client = new Client({ name: 'webhook-test', version: '1.0.0' });
    const url = new URL(`${this.gw!.url}/mcp`);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    this.clients.push(client);
    return client;
  }

  async postPr(id: string, action: string, event = 'pull_request'): Promise<void> {
    const body = JSON.stringify({ action, number: 7 });
    const answer = await this.gw!.post('prs', body, { 'x-hub-signature-256': signGithub(SECRET, body), 'x-github-event': event, 'x-github-delivery': id });
    expect(answer.status).toBe(202);
  }

  deliveriesTo(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** /hook echoes the challenge and takes deliveries; /failing answers deliveries 500, /slow after 3 s; /silent never echoes. */
  private startReceiver(): Promise<void> {
    this.receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const entry = { path: req.url ?? '', headers: req.headers, body };
        const parsed = JSON.parse(body) as { type?: string; challenge?: string };
        if (parsed.type === 'verification') {
          this.verifications.push(entry);
          const answer = req.url === '/silent' ? '{"ok":true}' : JSON.stringify({ challenge: parsed.challenge });
          res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
          return;
        }
        this.received.push(entry);
        if (req.url === '/slow') setTimeout(() => res.writeHead(204).end(), 3000);
        else res.writeHead(req.url === '/failing' ? 500 : 204).end();
      });
    });
    return new Promise((resolve) =>
      this.receiver!.listen(0, '127.0.0.1', () => {
        this.base = `http://127.0.0.1:${(this.receiver!.address() as AddressInfo).port}`;
        resolve();
      }),
    );
  }

  private start(): Promise<TestGateway> {
    return startTestGateway({
      configDir: this.configDir,
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
      env: testProcessEnv(this.configDir, { MCP_ALICE_TOKEN: ALICE, MCP_BOB_TOKEN: BOB }),
      pollMs: 20,
      mcpEvents: { clock: () => Date.now() + this.offsetMs, refreshMs: 100 },
    });
  }
}
