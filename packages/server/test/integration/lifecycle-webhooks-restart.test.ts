// `notify:` messages are durable on SQLite (issue 36): while the receiver is down (503) events happen, the gateway
// is stopped with its messages unsent, started again on the same file, the receiver comes up, and every message
// arrives once (by webhook-id), signed in the Standard Webhooks format (checked with the official library).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';
import { githubFixture, signGithub, startTestGateway, type TestGateway } from '@hookwise/testing';

const SECRET = 'it-is-a-test-secret-0123456789';
const NOTIFY_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

interface Received {
  headers: Record<string, string>;
  body: string;
  status: number;
}

/** A receiver that answers 503 while `down`, 200 otherwise, and records every request. */
async function receiver(): Promise<{ server: Server; url: string; received: Received[]; state: { down: boolean } }> {
  const received: Received[] = [];
  const state = { down: true };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = state.down ? 503 : 200;
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString(), status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/hookwise`, received, state };
}

async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('notify: messages kept in the SQLite outbox across a restart', () => {
  const configDir = mkdtempSync(join(tmpdir(), 'hookwise-notify-restart-'));
  let gw: TestGateway | undefined;
  let target: Awaited<ReturnType<typeof receiver>> | undefined;
  afterAll(async () => {
    await gw?.stop();
    target?.server.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  const start = (url: string) =>
    startTestGateway({
      configDir,
      config: {
        notify: [{ url, secret: NOTIFY_SECRET, events: ['accepted', 'delivered'] }],
        platforms: {
          webhook: { enabled: true, extra: { routes: { prs: { secret: SECRET, events: ['pull_request'], prompt: 'review {action}' } } } },
        },
        store: { backend: 'sqlite' },
      },
      pollMs: 20,
    });

  it('sends every message once after the restart, signed', async () => {
    target = await receiver();
    gw = await start(target.url);
    const body = githubFixture('pull_request.opened');
    const deliveries = ['r-1', 'r-2', 'r-3'];
    for (const id of deliveries) {
      const answer = await gw.post('prs', body, { 'x-hub-signature-256': signGithub(SECRET, body), 'x-github-event': 'pull_request', 'x-github-delivery': id });
      expect(answer.status).toBe(202);
    }
    const firstRun = gw;
    await until('the three jobs delivered', () => firstRun.logs.filter((l) => /^delivered /.test(String(l.message))).length === 3);
    await until('a refused attempt', () => target!.received.length >= 1);
    await gw.stop();
    gw = undefined;

    // Stopped with all six messages (accepted and delivered of three events) unsent, kept in the file.
    const db = new Database(join(configDir, 'hookwise.sqlite'), { readonly: true });
    const kept = db.prepare('SELECT id FROM outbox').pluck().all() as string[];
    db.close();
    expect(kept).toHaveLength(6);
    expect(target.received.every((r) => r.status === 503)).toBe(true);

    target.state.down = false;
    gw = await start(target.url);
    const ok = () => target!.received.filter((r) => r.status === 200);
    await until('six messages accepted by the receiver', () => ok().length >= 6);
    // Time for a message sent twice to show up.
    await new Promise((r) => setTimeout(r, 1500));

    const verifier = new Webhook(NOTIFY_SECRET);
    const sent = ok().map((r) => ({
      id: r.headers['webhook-id'],
      message: verifier.verify(r.body, r.headers) as { type: string; data: { deliveryId: string } },
    }));
    expect(sent).toHaveLength(6);
    expect(new Set(sent.map((s) => s.id))).toEqual(new Set(kept));
    const arrived = sent.map((s) => `${s.message.type} ${s.message.data.deliveryId}`).sort();
    expect(arrived).toEqual(deliveries.flatMap((id) => [`hookwise.accepted ${id}`, `hookwise.delivered ${id}`]).sort());
    // The refused attempts before the restart carried ids that were then sent: the same messages, not new ones.
    for (const refused of target.received.filter((r) => r.status === 503)) expect(kept).toContain(refused.headers['webhook-id']);
    expect(gw.logText()).not.toContain(NOTIFY_SECRET.slice(6, 30));
  }, 60_000);
});
