// The embedded app over real HTTP: its own endpoints work beside the mounted webhook handler, a signed webhook is
// accepted and its answer reaches the app's own deliverer, and the gateway's checks still apply.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '@hookwise/gateway';
import { signGithub, signGeneric } from '@hookwise/testing';
import { createEmbeddedApp, type Answer, type EmbeddedApp } from '../../src/app';

const SECRET = 'embed-express-secret-0123456789';
let embedded: EmbeddedApp;
let server: Server;
let base: string;
const logLines: string[] = [];

beforeAll(async () => {
  const stream = new Writable({ write: (chunk: Buffer, _enc, done) => void (logLines.push(chunk.toString('utf8')), done()) });
  embedded = await createEmbeddedApp({ secret: SECRET, logger: createLogger({ level: 'info', format: 'json', stream }) });
  server = embedded.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await embedded.stop(2_000);
});

async function call(path: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('examples/embed-express', () => {
  it("serves the app's own endpoints, JSON parser included", async () => {
    expect(await call('/healthz')).toEqual({ status: 200, body: { ok: true } });
    const echo = await call('/api/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(echo).toEqual({ status: 200, body: { you_sent: { a: 1 } } });
  });

  it('accepts a signed webhook at /integrations/webhooks/ci and delivers the answer into the app', async () => {
    const delivered = new Promise<Answer>((resolve) => embedded.onAnswer(resolve));
    const body = JSON.stringify({ head_commit: { message: 'Fix the flaky login test' }, repository: { full_name: 'acme/shop' } });
    const res = await call('/integrations/webhooks/ci', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'X-GitHub-Event': 'push',
        'X-GitHub-Delivery': 'embed-1',
        'X-Hub-Signature-256': signGithub(SECRET, body),
      },
      body,
    });
    expect(res).toEqual({ status: 202, body: { status: 'accepted', route: 'ci', event: 'push', delivery_id: 'embed-1' } });

    // The echo agent answers with the rendered prompt.
    const answer = await delivered;
    expect(answer).toEqual({ route: 'ci', event: 'push', deliveryId: 'embed-1', text: 'Summarise for the team: Fix the flaky login test (acme/shop)' });
    expect(await call('/api/answers')).toEqual({ status: 200, body: { answers: [answer] } });
  });

  it("keeps the gateway's answers: bad signature, ignored event, duplicate, unknown route", async () => {
    const body = JSON.stringify({ event_type: 'deployment' });
    const post = (path: string, headers: Record<string, string>) =>
      call(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect(await post('/integrations/webhooks/ci', { 'X-Webhook-Signature': signGeneric('wrong', body) })).toEqual({
      status: 401,
      body: { error: 'Invalid signature' },
    });
    expect(logLines.join('')).toContain("Invalid signature on route 'ci'");
    expect(await post('/integrations/webhooks/ci', { 'X-Webhook-Signature': signGeneric(SECRET, body) })).toEqual({
      status: 200,
      body: { status: 'ignored', event: 'deployment' },
    });
    const push = JSON.stringify({ event_type: 'push' });
    const signed = { 'content-type': 'application/json', 'X-Webhook-Signature': signGeneric(SECRET, push), 'X-Request-ID': 'embed-dup' };
    expect((await call('/integrations/webhooks/ci', { method: 'POST', headers: signed, body: push })).status).toBe(202);
    expect(await call('/integrations/webhooks/ci', { method: 'POST', headers: signed, body: push })).toEqual({
      status: 200,
      body: { status: 'duplicate', delivery_id: 'embed-dup' },
    });
    expect(await post('/integrations/webhooks/nope', {})).toEqual({ status: 404, body: { error: 'Unknown route: nope' } });
  });
});
