// Outbound lifecycle webhooks (`notify:`, issue 36) against a real HTTP receiver: the chosen events arrive signed
// in the Standard Webhooks format (checked with the official `standardwebhooks` library), a 500 is retried with
// the same message id, events not chosen are never sent, no payload text or request header leaves, and the
// secret never reaches the log; a secret that is no Standard Webhooks key refuses startup.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { githubFixture, signGithub, startTestGateway, type TestGateway } from '@hookwise/testing';

const SECRET = 'it-is-a-test-secret-0123456789';
const NOTIFY_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

interface Received {
  headers: Record<string, string>;
  body: string;
  status: number;
}

/** A receiver that answers 500 to the first message of each type listed in `failFirst`, 200 otherwise. */
async function receiver(failFirst: string[]): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const failed = new Set<string>();
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const type = (JSON.parse(body) as { type: string }).type;
      const status = failFirst.includes(type) && !failed.has(type) ? 500 : 200;
      if (status === 500) failed.add(type);
      received.push({ headers: req.headers as Record<string, string>, body, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/hookwise`, received };
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function config(notify: unknown[]) {
  return {
    notify,
    platforms: {
      webhook: { enabled: true, extra: { routes: { prs: { secret: SECRET, events: ['pull_request'], prompt: 'review {action}' } } } },
    },
  };
}

describe('notify: outbound lifecycle webhooks', () => {
  let gw: TestGateway | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
    server?.close();
  });

  it('posts the chosen events signed, retries a 500 with the same id, and sends nothing else', async () => {
    const target = await receiver(['hookwise.accepted']);
    server = target.server;
    gw = await startTestGateway({ config: config([{ url: target.url, secret: NOTIFY_SECRET, events: ['accepted', 'delivered'] }]) });
    const opened = githubFixture('pull_request.opened');
    const post = (body: Buffer, delivery: string, event: string) =>
      gw!.post('prs', body, { 'x-hub-signature-256': signGithub(SECRET, body), 'x-github-event': event, 'x-github-delivery': delivery });

    // An ignored event (not chosen) first: it must never be sent.
    expect((await post(githubFixture('push'), 'n-push', 'push')).status).toBe(200);
    expect((await post(opened, 'n-1', 'pull_request')).status).toBe(202);
    await until(() => target.received.filter((r) => r.status === 200).length >= 2);

    const verifier = new Webhook(NOTIFY_SECRET);
    const messages = target.received.map((r) => ({ ...r, verified: verifier.verify(r.body, r.headers) as { type: string; data: Record<string, unknown> } }));
    // The accepted event: refused once with 500, then sent again under the same webhook-id.
    const accepted = messages.filter((m) => m.verified.type === 'hookwise.accepted');
    expect(accepted.map((m) => m.status)).toEqual([500, 200]);
    expect(accepted[0].headers['webhook-id']).toBe(accepted[1].headers['webhook-id']);
    expect(accepted[1].verified.data).toMatchObject({ route: 'prs', deliveryId: 'n-1', event: 'pull_request' });
    expect(accepted[1].verified.data).not.toHaveProperty('headers');

    const delivered = messages.filter((m) => m.verified.type === 'hookwise.delivered');
    expect(delivered).toHaveLength(1);
    expect(delivered[0].verified.data).toMatchObject({ route: 'prs', deliveryId: 'n-1', destination: 'log' });

    // Nothing but the chosen types; no payload text, and the secret is not in the log.
    await new Promise((r) => setTimeout(r, 300));
    expect(new Set(messages.map((m) => m.verified.type))).toEqual(new Set(['hookwise.accepted', 'hookwise.delivered']));
    expect(target.received.map((r) => r.body).join('')).not.toContain('Codertocat');
    expect(gw.logText()).not.toContain(NOTIFY_SECRET.slice(6, 30));
    // A tampered body does not verify.
    expect(() => verifier.verify(delivered[0].body.replace('prs', 'xyz'), delivered[0].headers)).toThrow();
  });

  it('refuses startup when a notify secret is not a Standard Webhooks key', async () => {
    await expect(startTestGateway({ config: config([{ url: 'http://127.0.0.1:9/x', secret: 'not base64!', events: ['accepted'] }]) })).rejects.toThrow(
      /notify\[0\]\.secret is not a Standard Webhooks secret/,
    );
  });
});
