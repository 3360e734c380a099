// SPEC 4.1, 6 and 7 over a real HTTP connection to the real host: status codes, bodies and log text.
import { request } from 'node:http';
import { githubFixture, signGithub, signGeneric, startTestGateway, type GithubFixture, type TestGateway } from '@hookwise/testing';
import { toRoute, type Route, type RouteSource } from '@hookwise/gateway';

const fixture = (file: string) => githubFixture(file.replace(/\.json$/, '') as GithubFixture);
const SECRET = 'it-is-a-test-secret-0123456789';

function routesConfig(routes: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { platforms: { webhook: { enabled: true, extra: { routes, ...extra } } }, retry: { base_delay_seconds: 0.05, max_delay_seconds: 0.1 } };
}

/** Sends a raw request (chunked or with a lying Content-Length) and returns status and body. */
function rawPost(url: string, path: string, headers: Record<string, string | number>, chunks: Buffer[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? undefined : reject(err)));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** Fixed windows roll over on the minute: start rate-limit tests well inside one window. */
async function awayFromWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 8_000) await new Promise((r) => setTimeout(r, left + 50));
}

describe('POST /webhooks/:route', () => {
  let gw: TestGateway;
  afterEach(async () => {
    await gw?.stop();
  });

  it('answers GET /health with status ok and platform webhook', async () => {
    gw = await startTestGateway({ config: routesConfig({}) });
    const res = await fetch(`${gw.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', platform: 'webhook' });
  });

  it('answers 404 with the route name for an unknown route', async () => {
    gw = await startTestGateway({ config: routesConfig({}) });
    const res = await gw.post('nope', '{}');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Unknown route: nope' });
  });

  it.each([
    [
      'codehost A',
      'pull_request.opened.json',
      (b: Buffer) => ({ 'x-codehosta-signature-256': signGithub(SECRET, b), 'x-codehosta-event': 'pull_request', 'x-codehosta-delivery': 'd-a-1' }),
    ],
    ['codehost B', 'push.json', () => ({ 'x-codehostb-token': SECRET, 'x-codehostb-event': 'Push Hook', 'x-request-id': 'd-b-1' })],
    ['generic', 'issues.opened.json', (b: Buffer) => ({ 'x-webhook-signature': signGeneric(SECRET, b), 'x-request-id': 'd-g-1' })],
  ])('accepts a real %s payload signed over its exact bytes with 202', async (_style, file, headers) => {
    gw = await startTestGateway({ config: routesConfig({ ci: { secret: SECRET } }) });
    const body = fixture(file);
    const res = await gw.post('ci', body, headers(body) as Record<string, string>);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'accepted', route: 'ci' });
    expect(res.body.delivery_id).toBe(
      (headers(body) as Record<string, string>)['x-codehosta-delivery'] ?? (headers(body) as Record<string, string>)['x-request-id'],
    );
    await gw.waitForLog(/^delivered /);
  });

  it('renders the prompt template and delivers the echo answer to the log', async () => {
    gw = await startTestGateway({
      config: routesConfig({ prs: { secret: SECRET, prompt: 'PR #{pull_request.number} "{pull_request.title}" by {sender.login}; missing {nope.x}' } }),
    });
    const body = fixture('pull_request.opened.json');
    const payload = JSON.parse(body.toString()) as { pull_request: { number: number; title: string }; sender: { login: string } };
    const res = await gw.post('prs', body, { 'x-codehosta-signature-256': signGithub(SECRET, body), 'x-codehosta-event': 'pull_request' });
    expect(res.status).toBe(202);
    const line = await gw.waitForLog("response for route 'prs'");
    expect(String(line.message)).toContain(`PR #${payload.pull_request.number} "${payload.pull_request.title}" by ${payload.sender.login}; missing {nope.x}`);
  });

  it('answers 401 "Missing signature" when no recognised signature header is present', async () => {
    gw = await startTestGateway({ config: routesConfig({ ci: { secret: SECRET } }) });
    const res = await gw.post('ci', '{"a":1}');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Missing signature' });
  });

  it.each([
    ['x-codehosta-signature-256', 'sha256=' + '0'.repeat(64)],
    ['x-codehosta-signature-256', 'sha1=abc'],
    ['x-codehosta-signature-256', 'sha256=zz'],
    ['x-webhook-signature', 'ü'.repeat(64)],
    ['x-codehostb-token', 'wrong-token'],
  ])('answers 401 "Invalid signature" and logs a warning for %s: %s', async (header, value) => {
    gw = await startTestGateway({ config: routesConfig({ ci: { secret: SECRET } }) });
    const res = await fetch(`${gw.url}/webhooks/ci`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [header]: encodeURIComponent(value) === value ? value : Buffer.from(value).toString('latin1') },
      body: '{"a":1}',
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'Invalid signature' });
    const warning = await gw.waitForLog('Invalid signature');
    expect(warning.level).toBe('warn');
    expect(gw.logText()).not.toContain(SECRET);
  });

  it('uses the global secret for a route without its own', async () => {
    gw = await startTestGateway({ config: routesConfig({ ci: {} }, { secret: SECRET }) });
    const ok = await gw.post('ci', '{"a":1}', { 'x-webhook-signature': signGeneric(SECRET, '{"a":1}') });
    expect(ok.status).toBe(202);
    const bad = await gw.post('ci', '{"a":1}', { 'x-webhook-signature': signGeneric('other-secret', '{"a":1}') });
    expect(bad.status).toBe(401);
  });

  it('skips verification entirely for INSECURE_NO_AUTH on loopback', async () => {
    gw = await startTestGateway({ config: routesConfig({ dev: { secret: 'INSECURE_NO_AUTH' } }) });
    expect((await gw.post('dev', '{"a":1}')).status).toBe(202);
  });

  it('answers 400 "Cannot parse body" for malformed JSON and for a JSON array', async () => {
    gw = await startTestGateway({ config: routesConfig({ dev: { secret: 'INSECURE_NO_AUTH' } }) });
    for (const body of ['{"a":', '[1,2]', '"text"', '']) {
      const res = await gw.post('dev', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Cannot parse body' });
    }
  });

  it('accepts a form-encoded body with a payload= JSON field', async () => {
    gw = await startTestGateway({ config: routesConfig({ dev: { secret: 'INSECURE_NO_AUTH', prompt: 'action={action}' } }) });
    const res = await gw.post('dev', `payload=${encodeURIComponent('{"action":"opened"}')}`, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(202);
    expect(String((await gw.waitForLog('response for route')).message)).toContain('action=opened');
  });

  it('answers 413 from Content-Length before reading, and while streaming a chunked body', async () => {
    gw = await startTestGateway({ config: routesConfig({ dev: { secret: 'INSECURE_NO_AUTH' } }, { max_body_bytes: 1000 }) });
    const big = Buffer.alloc(5000, 'a');
    const byLength = await rawPost(gw.url, '/webhooks/dev', { 'content-type': 'application/json', 'content-length': big.length }, [big]);
    expect(byLength.status).toBe(413);
    expect(JSON.parse(byLength.body)).toEqual({ error: 'Payload too large' });
    const chunked = await rawPost(gw.url, '/webhooks/dev', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, [
      Buffer.alloc(600, 'a'),
      Buffer.alloc(600, 'b'),
    ]);
    expect(chunked.status).toBe(413);
    const fits = await gw.post('dev', JSON.stringify({ pad: 'x'.repeat(900) }));
    expect(fits.status).toBe(202);
  });

  it('skips a duplicate X-CodeHostA-Delivery or X-Request-ID with 200 and runs the agent once', async () => {
    gw = await startTestGateway({ config: routesConfig({ dev: { secret: 'INSECURE_NO_AUTH' } }) });
    for (const header of ['x-codehosta-delivery', 'x-request-id']) {
      const first = await gw.post('dev', '{"n":1}', { [header]: `dup-${header}` });
      expect(first.status).toBe(202);
      const second = await gw.post('dev', '{"n":1}', { [header]: `dup-${header}` });
      expect(second.status).toBe(200);
      expect(second.body).toEqual({ status: 'duplicate', delivery_id: `dup-${header}` });
    }
    // Both events' runs: the jobs run concurrently, so the first may end after the second.
    await gw.waitForLog('delivered dup-x-codehosta-delivery');
    await gw.waitForLog('delivered dup-x-request-id');
    const runs = gw.logs.filter((l) => String(l.message).startsWith("response for route 'dev'"));
    expect(runs).toHaveLength(2);
  });

  it('never takes two id-less requests for duplicates', async () => {
    gw = await startTestGateway({ config: routesConfig({ dev: { secret: 'INSECURE_NO_AUTH' } }) });
    const results = await Promise.all(Array.from({ length: 10 }, () => gw.post('dev', '{"n":1}')));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(202));
    expect(new Set(results.map((r) => r.body.delivery_id)).size).toBe(10);
  });

  it('ignores events not in the route filter with 200, reading headers then event_type', async () => {
    gw = await startTestGateway({ config: routesConfig({ dev: { secret: 'INSECURE_NO_AUTH', events: ['pull_request', 'merge_request'] } }) });
    const push = await gw.post('dev', '{}', { 'x-codehosta-event': 'push' });
    expect(push.status).toBe(200);
    expect(push.body).toEqual({ status: 'ignored', event: 'push' });
    const fromBody = await gw.post('dev', '{"event_type":"deploy"}');
    expect(fromBody.body).toEqual({ status: 'ignored', event: 'deploy' });
    const pr = await gw.post('dev', '{}', { 'x-codehosta-event': 'pull_request' });
    expect(pr.status).toBe(202);
    const mr = await gw.post('dev', '{}', { 'x-codehostb-event': 'Merge Request Hook' });
    expect(mr.status).toBe(202);
    expect(mr.body.event).toBe('Merge Request Hook');
    const viaBody = await gw.post('dev', '{"event_type":"pull_request"}');
    expect(viaBody.status).toBe(202);
  });

  it('answers the 31st signed request in a window with 429 and Retry-After; unsigned ones use no quota', async () => {
    gw = await startTestGateway({ config: routesConfig({ ci: { secret: SECRET } }) });
    await awayFromWindowEdge();
    for (let i = 0; i < 40; i += 1) expect((await gw.post('ci', '{}')).status).toBe(401);
    for (let i = 0; i < 30; i += 1) {
      const body = JSON.stringify({ i });
      expect((await gw.post('ci', body, { 'x-webhook-signature': signGeneric(SECRET, body) })).status).toBe(202);
    }
    const over = await gw.post('ci', '{"i":31}', { 'x-webhook-signature': signGeneric(SECRET, '{"i":31}') });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ error: 'Rate limit exceeded' });
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('honours a configured rate_limit per route', async () => {
    gw = await startTestGateway({ config: routesConfig({ a: { secret: 'INSECURE_NO_AUTH' }, b: { secret: 'INSECURE_NO_AUTH' } }, { rate_limit: 2 }) });
    await awayFromWindowEdge();
    expect((await gw.post('a', '{}')).status).toBe(202);
    expect((await gw.post('a', '{}')).status).toBe(202);
    expect((await gw.post('a', '{}')).status).toBe(429);
    expect((await gw.post('b', '{}')).status).toBe(202);
  });

  it('prefers a static route over a subscription of the same name, and serves subscriptions', async () => {
    const dynamic = new Map<string, Route>([
      ['shared', toRoute('shared', { secret: 'INSECURE_NO_AUTH', prompt: 'from subscription' }, 'subscription')],
      ['dyn', toRoute('dyn', { secret: 'INSECURE_NO_AUTH', prompt: 'dynamic {x}' }, 'subscription')],
    ]);
    const routeSource: RouteSource = { current: () => dynamic };
    gw = await startTestGateway({ config: routesConfig({ shared: { secret: 'INSECURE_NO_AUTH', prompt: 'from static' } }), routeSource });
    expect((await gw.post('shared', '{}')).status).toBe(202);
    expect(String((await gw.waitForLog("response for route 'shared'")).message)).toContain('from static');
    expect((await gw.post('dyn', '{"x":7}')).status).toBe(202);
    expect(String((await gw.waitForLog("response for route 'dyn'")).message)).toContain('dynamic 7');
  });

  it('answers 405 for other methods on a webhook path and 404 JSON elsewhere', async () => {
    gw = await startTestGateway({ config: routesConfig({ dev: { secret: 'INSECURE_NO_AUTH' } }) });
    const get = await fetch(`${gw.url}/webhooks/dev`);
    expect(get.status).toBe(405);
    const other = await fetch(`${gw.url}/elsewhere`);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: 'Not found: GET /elsewhere' });
  });
});
