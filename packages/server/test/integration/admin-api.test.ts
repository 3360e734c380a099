// The admin API under /api over real HTTP: who may use it (token, loopback), the CSRF rule for actions, listing,
// showing (headers without secrets), replaying, retrying, stats, refused requests and the live change stream.
import { request } from 'node:http';
import { signGeneric, type TestGateway } from '@hookwise/testing';
import { ADMIN_TOKEN, SECRET, send, settled, startObserved } from './observed-gateway';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
  text: string;
}

/** node:http, so that Host and proxy headers can be set as a hostile client would. */
function call(gw: TestGateway, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${gw.url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, body, text });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const push = (gw: TestGateway, id: string, ref = 'main') =>
  send(
    gw,
    'ci',
    { event_type: 'push', ref, repository: { name: 'hookwise' } },
    { 'x-request-id': id, 'user-agent': 'GitHub-Hookshot/abc', authorization: 'Basic c2VjcmV0OnNlY3JldA==' },
  );

describe('admin API access', () => {
  it('is not served unless admin.enabled (or admin.ui) is set', async () => {
    gw = await startObserved();
    expect((await call(gw, 'GET', '/api/deliveries')).status).toBe(404);
  });

  it('without admin.token answers direct loopback clients only: not through a proxy, not to another Host name', async () => {
    gw = await startObserved({ admin: { enabled: true } });
    expect((await call(gw, 'GET', '/api/deliveries')).status).toBe(200);
    const proxied = await call(gw, 'GET', '/api/deliveries', { 'x-forwarded-for': '203.0.113.9' });
    expect(proxied.status).toBe(403);
    expect(proxied.body.error).toMatch(/loopback clients only/);
    // A DNS-rebinding page reaches 127.0.0.1 under its own name.
    expect((await call(gw, 'GET', '/api/deliveries', { host: 'attacker.example' })).status).toBe(403);
    expect((await call(gw, 'GET', '/api/deliveries', { host: `localhost:${gw.port}` })).status).toBe(200);
  });

  it('with admin.token asks for it as a bearer token, compared in constant time', async () => {
    gw = await startObserved({ admin: { enabled: true, token: ADMIN_TOKEN } });
    const none = await call(gw, 'GET', '/api/deliveries');
    expect(none.status).toBe(401);
    expect(none.body.error).toMatch(/admin token required/);
    expect((await call(gw, 'GET', '/api/deliveries', { authorization: 'Bearer wrong-token-0123456789' })).status).toBe(401);
    expect((await call(gw, 'GET', '/api/deliveries', { authorization: `Bearer ${ADMIN_TOKEN}` })).status).toBe(200);
    // Loopback is no longer enough once a token is set.
    expect((await call(gw, 'GET', '/api/stats')).status).toBe(401);
    expect(gw.logText()).not.toContain(ADMIN_TOKEN);
  });

  it('refuses actions without the CSRF header or from another origin, unless they carry the bearer token', async () => {
    gw = await startObserved({ admin: { enabled: true } });
    await push(gw, 'csrf-1');
    await settled(gw, 1);
    const bare = await call(gw, 'POST', '/api/deliveries/csrf-1/replay');
    expect(bare.status).toBe(403);
    expect(bare.body.error).toMatch(/X-Hookwise-CSRF/);
    expect((await call(gw, 'POST', '/api/deliveries/csrf-1/replay', { 'x-hookwise-csrf': '1', origin: 'http://attacker.example' })).status).toBe(403);
    expect((await call(gw, 'POST', '/api/deliveries/csrf-1/replay', { 'x-hookwise-csrf': '1', origin: gw.url })).status).toBe(201);
    await gw.stop();

    gw = await startObserved({ admin: { enabled: true, token: ADMIN_TOKEN } });
    await push(gw, 'csrf-2');
    await settled(gw, 1);
    expect((await call(gw, 'POST', '/api/deliveries/csrf-2/replay', { authorization: `Bearer ${ADMIN_TOKEN}` })).status).toBe(201);
  });

  it('refuses to start with an admin token shorter than 16 characters', async () => {
    await expect(startObserved({ admin: { enabled: true, token: 'too-short' } })).rejects.toThrow(/admin\.token is 9 characters long: use at least 16/);
  });
});

describe('admin API', () => {
  const csrf = { 'x-hookwise-csrf': 'cli' };

  it('lists deliveries newest first with status, route and event filters', async () => {
    gw = await startObserved({ admin: { enabled: true } });
    await push(gw, 'list-1');
    await push(gw, 'fail9-list-2');
    await send(gw, 'docs', { event_type: 'release', ref: 'v1' }, { 'x-request-id': 'list-3' });
    await settled(gw, 3);
    const all = await call(gw, 'GET', '/api/deliveries');
    expect((all.body.deliveries as Array<{ deliveryId: string }>).map((d) => d.deliveryId)).toEqual(['list-3', 'fail9-list-2', 'list-1']);
    const dead = await call(gw, 'GET', '/api/deliveries?status=dead');
    expect(dead.body.deliveries).toEqual([
      expect.objectContaining({ deliveryId: 'fail9-list-2', status: 'dead', step: 'deliver', lastError: expect.stringMatching(/chat service answered 502/) }),
    ]);
    expect(((await call(gw, 'GET', '/api/deliveries?route=docs')).body.deliveries as unknown[]).length).toBe(1);
    expect(((await call(gw, 'GET', '/api/deliveries?event=release')).body.deliveries as Array<{ deliveryId: string }>).map((d) => d.deliveryId)).toEqual([
      'list-3',
    ]);
    expect(((await call(gw, 'GET', '/api/deliveries?limit=1')).body.deliveries as unknown[]).length).toBe(1);
    const bad = await call(gw, 'GET', '/api/deliveries?status=finished');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/status must be one of pending, running, done, dead/);
  });

  it('shows one delivery: payload, prompt, answer, receipt, attempts with timing, and its headers without secret values', async () => {
    gw = await startObserved({ admin: { enabled: true } });
    const body = JSON.stringify({ event_type: 'push', ref: 'main', repository: { name: 'hookwise' } });
    const signature = signGeneric(SECRET, body);
    await gw.post('ci', body, {
      'x-webhook-signature': signature,
      'x-request-id': 'fail1-show',
      'x-api-key': 'sender-api-key-123',
      'user-agent': 'GitHub-Hookshot/abc',
    });
    await settled(gw, 1);
    const shown = await call(gw, 'GET', '/api/deliveries/fail1-show');
    expect(shown.status).toBe(200);
    const delivery = shown.body.delivery as Record<string, unknown>;
    expect(delivery).toMatchObject({
      deliveryId: 'fail1-show',
      route: 'ci',
      status: 'done',
      payload: { ref: 'main' },
      prompt: 'Build main of hookwise',
      answer: 'Answer to: Build main of hookwise',
      receipt: { target: 'chat-room-7' },
    });
    const activity = shown.body.activity as { headers: Array<[string, string]>; attempts: Array<Record<string, unknown>> };
    const headers = Object.fromEntries(activity.headers);
    expect(headers['x-webhook-signature']).toBe('[REDACTED]');
    expect(headers['x-api-key']).toBe('[REDACTED]');
    expect(headers['user-agent']).toBe('GitHub-Hookshot/abc');
    expect(headers['x-request-id']).toBe('fail1-show');
    expect(shown.text).not.toContain(signature);
    expect(shown.text).not.toContain('sender-api-key-123');
    expect(activity.attempts.map((a) => [a.step, a.attempt, a.outcome])).toEqual([
      ['agent', 1, 'ok'],
      ['deliver', 1, 'error'],
      ['deliver', 2, 'ok'],
    ]);
    expect(activity.attempts[1]).toMatchObject({ destination: 'flaky', error: expect.stringMatching(/502/), then: { retryInMs: expect.any(Number) } });
    expect(activity.attempts[0]).toMatchObject({
      runner: 'observed',
      usage: { inputTokens: 12, outputTokens: 5 },
      durationMs: expect.any(Number),
      startedAt: expect.any(Number),
    });
    // The job id finds it too; an unknown id is a 404.
    expect((await call(gw, 'GET', `/api/deliveries/${String(delivery.id)}`)).status).toBe(200);
    expect((await call(gw, 'GET', '/api/deliveries/nope')).status).toBe(404);
  });

  it('replays an event as a new job with its own delivery id, which the workers pick up', async () => {
    gw = await startObserved({ admin: { enabled: true } });
    await push(gw, 'replay-me');
    await settled(gw, 1);
    const replayed = await call(gw, 'POST', '/api/deliveries/replay-me/replay', csrf);
    expect(replayed.status).toBe(201);
    const copy = replayed.body.delivery as { deliveryId: string };
    expect(replayed.body.replayed).toBe('replay-me');
    expect(copy.deliveryId).toMatch(/^replay-me-replay-\d+$/);
    await settled(gw, 2);
    const shown = await call(gw, 'GET', `/api/deliveries/${encodeURIComponent(copy.deliveryId)}`);
    expect(shown.body.delivery).toMatchObject({ status: 'done', answer: 'Answer to: Build main of hookwise' });
    expect(gw.logText()).toContain(`replaying replay-me on route 'ci' as ${copy.deliveryId} (admin API)`);
  });

  it('retries a dead letter (one, or all of a route) and refuses to retry what is not dead', async () => {
    gw = await startObserved({ admin: { enabled: true } });
    await push(gw, 'fail2-retry-one');
    await push(gw, 'fail2-retry-all');
    await settled(gw, 2);
    expect((await call(gw, 'GET', '/api/deliveries?status=dead')).body.deliveries).toHaveLength(2);
    const one = await call(gw, 'POST', '/api/deliveries/fail2-retry-one/retry', csrf);
    expect(one.status).toBe(200);
    expect(one.body.retried).toBe('fail2-retry-one');
    await settled(gw, 2);
    expect((await call(gw, 'GET', '/api/deliveries/fail2-retry-one')).body.delivery).toMatchObject({ status: 'done' });
    const again = await call(gw, 'POST', '/api/deliveries/fail2-retry-one/retry', csrf);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/is done, not a dead letter/);
    const all = await call(gw, 'POST', '/api/dead-letters/retry?route=ci', csrf);
    expect(all.body.retried).toEqual(['fail2-retry-all']);
    await settled(gw, 2);
    expect((await call(gw, 'GET', '/api/deliveries?status=dead')).body.deliveries).toEqual([]);
  });

  it('reports the queue depth, per-minute counts and the refused requests of this gateway', async () => {
    gw = await startObserved({ admin: { enabled: true } });
    await push(gw, 'stats-1');
    await push(gw, 'fail9-stats-2');
    await gw.post('ci', '{"event_type":"push"}', { 'x-webhook-signature': '00'.repeat(32) });
    await push(gw, 'stats-1');
    await settled(gw, 2);
    const stats = await call(gw, 'GET', '/api/stats');
    expect(stats.body.queue).toEqual({ pending: 0, running: 0, dead: 1 });
    expect(stats.body.routes).toEqual(['ci', 'docs']);
    const minutes = stats.body.minutes as Array<Record<string, number>>;
    expect(minutes).toHaveLength(30);
    const total = (key: string) => minutes.reduce((sum, m) => sum + m[key], 0);
    expect([total('accepted'), total('refused'), total('delivered'), total('failed'), total('deadLettered'), total('agentRuns')]).toEqual([2, 1, 1, 2, 1, 2]);
    const requests = (await call(gw, 'GET', '/api/requests')).body.requests as Array<Record<string, unknown>>;
    expect(requests.map((r) => [r.outcome, r.status, r.reason ?? r.deliveryId])).toEqual([
      ['duplicate', 200, 'stats-1'],
      ['rejected', 401, 'invalid_signature'],
    ]);
  });

  it('streams changes as server-sent events while a client listens', async () => {
    gw = await startObserved({ admin: { enabled: true } });
    const controller = new AbortController();
    const res = await fetch(`${gw.url}/api/stream`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const received: string[] = [];
    const firstChange = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        received.push(Buffer.from(value).toString());
        const text = received.join('');
        const match = /event: changes\ndata: (.*)\n\n/.exec(text);
        if (match) return JSON.parse(match[1]) as { events: Record<string, number>; jobs: string[] };
      }
    })();
    await push(gw, 'streamed');
    const change = await firstChange;
    expect(change.events.accepted).toBe(1);
    expect(change.jobs.length).toBeGreaterThanOrEqual(1);
    controller.abort();
    await firstChange.catch(() => undefined);
  });
});
