// Issue 20 over real HTTP to the real host: replays, forged floods, weak secrets, broken subscription files and
// paths that do not decode. Each test reproduces one numbered item of the issue (it failed before the fix).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signGeneric, startRedisServer, startTestGateway, testProcessEnv, type RunningRedis, type TestGateway } from '@hookwise/testing';

const SECRET = 'hostile-test-secret-0123456789';
const BARE_ENV = testProcessEnv();

function config(routes: Record<string, unknown>, extra: Record<string, unknown> = {}, store: Record<string, unknown> = { backend: 'memory' }) {
  return { platforms: { webhook: { enabled: true, extra: { routes, ...extra } } }, store };
}

const signed = (body: string, headers: Record<string, string> = {}) => ({ 'x-webhook-signature': signGeneric(SECRET, body), ...headers });

/** Fixed windows roll over on the minute: start window-counting tests well inside one. */
async function awayFromWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((r) => setTimeout(r, left + 50));
}

/** A request with any method and a raw path (fetch would normalise `%`), answered status and body. */
function raw(url: string, method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method, headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const warnings = (gw: TestGateway, text: string) => gw.logs.filter((l) => l.level === 'warn' && String(l.message).includes(text));

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

describe.each(['memory', 'sqlite', 'redis'])('issue 20 item 1: only accepted work counts against the rate window (%s store)', (backend) => {
  let redis: RunningRedis | undefined;
  let prefix = 0;
  beforeAll(async () => {
    if (backend === 'redis') redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  // A fresh key prefix per test on the shared redis-server, so no test sees another's window.
  const store = () => (backend === 'redis' ? { backend: 'redis', url: redis!.url, prefix: `hostile-${(prefix += 1)}` } : { backend });

  it("answers 29 replays of a captured signed request 200 duplicate, and the real sender's next event is still accepted", async () => {
    gw = await startTestGateway({ config: config({ ci: { secret: SECRET } }, {}, store()) });
    await awayFromWindowEdge();
    const captured = '{"action":"opened","n":1}';
    const headers = signed(captured, { 'x-request-id': 'captured-delivery-1' });
    expect((await gw.post('ci', captured, headers)).status).toBe(202);
    for (let i = 0; i < 29; i += 1) {
      const replay = await gw.post('ci', captured, headers);
      expect(replay).toMatchObject({ status: 200, body: { status: 'duplicate' } });
    }
    // Before the fix the window was full here (1 + 29 of 30) and every sender got 429 for the rest of the minute.
    for (let i = 0; i < 5; i += 1) {
      const body = JSON.stringify({ real: i });
      expect((await gw.post('ci', body, signed(body, { 'x-request-id': `real-${i}` }))).status).toBe(202);
    }
  });

  it('answers ignored events and bad bodies without using the window; accepted events still fill it (429 + Retry-After)', async () => {
    gw = await startTestGateway({ config: config({ ci: { secret: SECRET, events: ['push'] } }, { rate_limit: 3 }, store()) });
    await awayFromWindowEdge();
    for (let i = 0; i < 10; i += 1) {
      const body = JSON.stringify({ event_type: 'star', i });
      expect((await gw.post('ci', body, signed(body))).body).toEqual({ status: 'ignored', event: 'star' });
    }
    for (let i = 0; i < 3; i += 1) expect((await gw.post('ci', 'not json', signed('not json'))).status).toBe(400);
    for (let i = 0; i < 3; i += 1) {
      const body = JSON.stringify({ event_type: 'push', i });
      expect((await gw.post('ci', body, signed(body))).status).toBe(202);
    }
    const over = JSON.stringify({ event_type: 'push', i: 3 });
    const refused = await gw.post('ci', over, signed(over));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The SPEC's order: with the window full, a replay is answered 429 too, not duplicate.
    const first = JSON.stringify({ event_type: 'push', i: 0 });
    expect((await gw.post('ci', first, signed(first))).status).toBe(429);
  });
});

describe('issue 20 item 2: forged requests are throttled per client (auth_failure_limit)', () => {
  it('answers a client 429 with Retry-After without verifying once it failed the limit, and logs one warning line plus a count', async () => {
    gw = await startTestGateway({ config: config({ ci: { secret: SECRET } }, { auth_failure_limit: 5 }) });
    for (let i = 0; i < 5; i += 1) expect((await gw.post('ci', '{}', { 'x-webhook-signature': 'f'.repeat(64) })).status).toBe(401);
    const blocked = await gw.post('ci', '{}', { 'x-webhook-signature': 'f'.repeat(64) });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ error: 'Too many failed authentications, retry later' });
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Not verified: even a correctly signed request from that client waits for the end of its minute.
    expect((await gw.post('ci', '{"ok":1}', signed('{"ok":1}'))).status).toBe(429);
    expect(warnings(gw, 'Invalid signature')).toHaveLength(1);
    const stopping = gw;
    gw = undefined;
    await stopping.stop();
    // The rest of the window's failures are one line with their count (written at the latest when the gateway stops).
    const summary = warnings(stopping, 'more failed authentication(s) from 127.0.0.1');
    expect(summary).toHaveLength(1);
    expect(String(summary[0].message)).toMatch(/^Invalid signature: 4 more failed authentication\(s\) from 127\.0\.0\.1 .*route\(s\) 'ci'.*answered 429/);
  });

  it('refuses the 61st forged request of a minute by default (auth_failure_limit 60), with one warning line instead of 61', async () => {
    gw = await startTestGateway({ config: config({ ci: { secret: SECRET } }) });
    const statuses: number[] = [];
    for (let i = 0; i < 61; i += 1) statuses.push((await gw.post('ci', '{}', { 'x-webhook-signature': 'e'.repeat(64) })).status);
    expect(statuses.slice(0, 60)).toEqual(Array(60).fill(401));
    expect(statuses[60]).toBe(429);
    expect(warnings(gw, 'Invalid signature')).toHaveLength(1);
  });

  it('never reads X-Forwarded-For by default: a forger cannot escape the throttle with a fresh header', async () => {
    gw = await startTestGateway({ config: config({ ci: { secret: SECRET } }, { auth_failure_limit: 3 }) });
    for (let i = 0; i < 3; i += 1)
      expect((await gw.post('ci', '{}', { 'x-webhook-signature': 'a'.repeat(64), 'x-forwarded-for': `198.51.100.${i}` })).status).toBe(401);
    expect((await gw.post('ci', '{}', { 'x-webhook-signature': 'a'.repeat(64), 'x-forwarded-for': '198.51.100.99' })).status).toBe(429);
  });

  it('behind trusted_proxies takes the nearest untrusted X-Forwarded-For hop, so one client is throttled and another is not', async () => {
    gw = await startTestGateway({ config: config({ ci: { secret: SECRET } }, { auth_failure_limit: 3, trusted_proxies: ['127.0.0.0/8'] }) });
    const forged = (xff: string) => gw!.post('ci', '{}', { 'x-webhook-signature': 'b'.repeat(64), 'x-forwarded-for': xff });
    for (let i = 0; i < 3; i += 1) expect((await forged('203.0.113.9')).status).toBe(401);
    expect((await forged('203.0.113.9')).status).toBe(429);
    // Whatever the client writes to the left of the proxy's own entry is not believed.
    expect((await forged('192.0.2.1, 203.0.113.9')).status).toBe(429);
    const body = '{"from":"another client"}';
    expect((await gw.post('ci', body, signed(body, { 'x-forwarded-for': '203.0.113.10' }))).status).toBe(202);
  });

  it('turns the throttle off with auth_failure_limit: 0, still logging one line per client', async () => {
    gw = await startTestGateway({ config: config({ ci: { secret: SECRET } }, { auth_failure_limit: 0 }) });
    const statuses = await Promise.all(Array.from({ length: 80 }, () => gw!.post('ci', '{}', { 'x-webhook-signature': 'c'.repeat(64) }).then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(warnings(gw, 'Invalid signature')).toHaveLength(1);
  });

  it('refuses to start on a trusted_proxies entry that is not an address or range', async () => {
    await expect(startTestGateway({ config: config({ ci: { secret: SECRET } }, { trusted_proxies: ['proxy.internal'] }) })).rejects.toThrow(
      "platforms.webhook.extra.trusted_proxies: 'proxy.internal' is not an IP address or CIDR range",
    );
  });
});

describe('issue 20 items 3 and 9: secrets are long enough, ASCII, and redacted', () => {
  it('refuses to start on a secret under 16 characters, naming its key; INSECURE_NO_AUTH still starts', async () => {
    await expect(startTestGateway({ config: config({ ci: { secret: 'ab' } }) })).rejects.toThrow(
      "route 'ci' secret is 2 character(s) long; secrets must have at least 16",
    );
    await expect(startTestGateway({ config: config({ ci: { secrets: [SECRET, 'old-short'] } }) })).rejects.toThrow(
      "route 'ci' secrets[1] is 9 character(s) long",
    );
    await expect(startTestGateway({ config: config({ ci: {} }), env: { ...BARE_ENV, WEBHOOK_SECRET: 'tiny' } })).rejects.toThrow(
      'platforms.webhook.extra (or WEBHOOK_SECRET) secret is 4 character(s) long',
    );
    gw = await startTestGateway({ config: config({ dev: { secret: 'INSECURE_NO_AUTH' } }) });
    expect((await gw.post('dev', '{}')).status).toBe(202);
  });

  it('refuses a non-ASCII secret at load (it could never match the plain-token style), naming its key', async () => {
    await expect(startTestGateway({ config: config({ ci: { secret: 'pässwörd-with-umlauts-0123' } }) })).rejects.toThrow(
      "route 'ci' secret contains characters outside ASCII",
    );
  });

  it('skips a subscription whose secret is too short, with a warning naming it', async () => {
    gw = await startTestGateway({
      config: config({}),
      files: {
        'webhook_subscriptions.json': JSON.stringify({
          weak: {
            events: [],
            secret: 'ab',
            skills: [],
            deliver: 'log',
            deliver_extra: {},
            created_at: '2025-01-01T00:00:00Z',
            updated_at: '2025-01-01T00:00:00Z',
          },
        }),
      },
    });
    expect((await gw.post('weak', '{}', { 'x-gitlab-token': 'ab' })).status).toBe(404);
    expect(warnings(gw, "skipping route 'weak' secret is 2 character(s) long")).toHaveLength(1);
  });

  it('refuses `hookwise webhook subscribe x --secret ab` in the real CLI, writing nothing', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookwise-weak-secret-'));
    try {
      writeFileSync(join(home, 'config.yaml'), 'platforms:\n  webhook:\n    enabled: true\n    extra:\n      host: 127.0.0.1\n');
      const cli = join(__dirname, '..', '..', '..', 'cli', 'bin', 'run.js');
      const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          [cli, 'webhook', 'subscribe', 'x', '--secret', 'ab'],
          { env: { ...BARE_ENV, HOOKWISE_HOME: home, OCLIF_COLUMNS: '1000' } },
          (err, _out, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr: String(stderr) }),
        );
        child.stdin?.end();
      });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain("route 'x' secret is 2 character(s) long; secrets must have at least 16");
      expect(() => JSON.parse(require('node:fs').readFileSync(join(home, 'webhook_subscriptions.json'), 'utf8'))).toThrow();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);

  it('compares a plain token in constant time also when the lengths differ: a wrong-length token is a clean 401', async () => {
    gw = await startTestGateway({ config: config({ ci: { secret: SECRET } }) });
    for (const token of ['x', SECRET.slice(0, -1), `${SECRET}x`, SECRET.toUpperCase()]) {
      expect((await gw.post('ci', '{}', { 'x-gitlab-token': token })).status).toBe(401);
    }
    expect((await gw.post('ci', '{}', { 'x-gitlab-token': SECRET })).status).toBe(202);
  });
});

describe('issue 20 item 6: subscriptions never vanish', () => {
  const entry = {
    events: [],
    secret: SECRET,
    skills: [],
    deliver: 'log',
    deliver_extra: {},
    created_at: '2025-01-01T00:00:00Z',
    updated_at: '2025-01-01T00:00:00Z',
  };

  it.each([
    ['empty', ''],
    ['whitespace-only', '  \n\t\n'],
    ['unparsable', '{"ci": {"events": ['],
  ])('keeps the last good subscriptions when the file becomes %s, and logs one error per change', async (_kind, text) => {
    gw = await startTestGateway({ config: config({}), files: { 'webhook_subscriptions.json': JSON.stringify({ sub: entry }) } });
    const body = '{"n":1}';
    expect((await gw.post('sub', body, signed(body))).status).toBe(202);
    writeFileSync(join(gw.configDir, 'webhook_subscriptions.json'), text);
    for (let i = 0; i < 3; i += 1) {
      const again = JSON.stringify({ n: i + 2 });
      expect((await gw.post('sub', again, signed(again))).status).toBe(202);
    }
    const errors = gw.logs.filter((l) => l.level === 'error' && String(l.message).includes('webhook_subscriptions.json'));
    expect(errors).toHaveLength(1);
    expect(String(errors[0].message)).toContain('the 1 subscription(s) read before stay active until the file is fixed');
  });
});

describe('issue 20 item 7: paths that do not decode', () => {
  it.each([
    ['GET', '/webhooks/%'],
    ['POST', '/webhooks/%'],
    ['POST', '/webhooks/%E0%A4%A'],
    ['GET', '/%zz'],
    ['DELETE', '/health%'],
    ['GET', '/webhooks/ci%ff'],
  ])('answers %s %s with 400, not 500', async (method, path) => {
    gw = await startTestGateway({ config: config({ ci: { secret: SECRET } }) });
    const res = await raw(gw.url, method, path, method === 'POST' ? '{}' : undefined);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: 'Malformed percent-encoding in the request path' });
    // A `%` in the query is not part of the path.
    expect((await raw(gw.url, 'GET', '/health?q=%')).status).toBe(200);
  });
});
