// Issue 34: the operator surfaces count failures per client. Twenty wrong tokens from one address must not lock the
// right token out from another; bearer guesses on /api are throttled per client; signing out ends the session on
// the server (the old cookie stops working). Clients are told apart by their loopback source address
// (127.0.0.1 and 127.0.0.2 both reach a gateway bound to 127.0.0.1 on Linux).
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestGateway } from '@hookwise/testing';
import { ADMIN_TOKEN, startObserved } from './observed-gateway';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function call(
  gw: TestGateway,
  method: string,
  path: string,
  options: { from?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${gw.url}${path}`, { method, headers: options.headers, localAddress: options.from ?? '127.0.0.1' }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const signIn = (gw: TestGateway, token: string, from?: string) =>
  call(gw, 'POST', '/ui/login', {
    from,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });

const sessionCookie = (answer: Answer): string => String((answer.headers['set-cookie'] as string[])[0]).split(';')[0];

describe('operator surfaces count failures per client (issue 34)', () => {
  it('20 wrong sign-ins from one address lock that address out, not the right token from another', async () => {
    gw = await startObserved({ admin: { ui: true, token: ADMIN_TOKEN } });
    for (let i = 0; i < 20; i += 1) expect((await signIn(gw, `wrong-${i}`, '127.0.0.1')).status).toBe(401);
    expect((await signIn(gw, ADMIN_TOKEN, '127.0.0.1')).status).toBe(429);
    const other = await signIn(gw, ADMIN_TOKEN, '127.0.0.2');
    expect(other.status).toBe(303);
    expect(sessionCookie(other)).toMatch(/^hookwise_admin=\d+\./);
  });

  it('throttles bearer guesses on /api per client: 429 with Retry-After, while another client still gets in', async () => {
    gw = await startObserved({ admin: { enabled: true, token: ADMIN_TOKEN } });
    const statuses: number[] = [];
    for (let i = 0; i < 25; i += 1) statuses.push((await call(gw, 'GET', '/api/stats', { headers: { authorization: `Bearer guess-${i}` } })).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(5).fill(429));
    const refused = await call(gw, 'GET', '/api/stats', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    const other = await call(gw, 'GET', '/api/stats', { from: '127.0.0.2', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(other.status).toBe(200);
  });

  it('sign-out revokes the session on the server: the old cookie stops working', async () => {
    gw = await startObserved({ admin: { ui: true, token: ADMIN_TOKEN } });
    const cookie = sessionCookie(await signIn(gw, ADMIN_TOKEN));
    expect((await call(gw, 'GET', '/api/stats', { headers: { cookie } })).status).toBe(200);
    expect((await call(gw, 'POST', '/ui/logout', { headers: { cookie } })).status).toBe(303);
    expect((await call(gw, 'GET', '/api/stats', { headers: { cookie } })).status).toBe(401);
    expect((await call(gw, 'GET', '/ui', { headers: { cookie } })).status).toBe(401);
  });

  it('a signed-out session stays refused after the gateway restarts on the same config dir; one still signed in works', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'hw-admin-restart-'));
    try {
      gw = await startObserved({ admin: { ui: true, token: ADMIN_TOKEN } }, { configDir });
      const ended = sessionCookie(await signIn(gw, ADMIN_TOKEN));
      await new Promise((r) => setTimeout(r, 5)); // another millisecond: another expiry, another cookie
      const kept = sessionCookie(await signIn(gw, ADMIN_TOKEN));
      expect(ended).not.toBe(kept);
      expect((await call(gw, 'POST', '/ui/logout', { headers: { cookie: ended } })).status).toBe(303);
      await gw.stop();
      gw = await startObserved({ admin: { ui: true, token: ADMIN_TOKEN } }, { configDir });
      expect((await call(gw, 'GET', '/api/stats', { headers: { cookie: ended } })).status).toBe(401);
      expect((await call(gw, 'GET', '/ui', { headers: { cookie: ended } })).status).toBe(401);
      expect((await call(gw, 'GET', '/api/stats', { headers: { cookie: kept } })).status).toBe(200);
      // The file holds digests, not cookies, and only the gateway's user reads it.
      const file = join(configDir, 'admin_sessions_revoked.json');
      expect(readFileSync(file, 'utf8')).not.toContain(ended.split('=')[1]);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      await gw?.stop();
      gw = undefined;
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});
