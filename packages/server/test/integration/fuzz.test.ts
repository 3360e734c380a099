// A bounded, seeded fuzz run (issue 20): random methods, paths, headers and bodies against a real
// `hookwise gateway run` process on a real SQLite file. No answer may be a 5xx other than the documented 503
// (store unavailable, backpressure, shutting down), and the process must be alive and healthy at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { freePort, testProcessEnv } from '@hookwise/testing';

const CLI = join(__dirname, '..', '..', '..', 'cli', 'bin', 'run.js');
const SECRET = 'fuzz-route-secret-0123456789abcdef';
const SEED = 20_2011;
/** Whole run budget, well inside jest's timeout below. */
const TIME_LIMIT_MS = 40_000;

const CONFIG = `platforms:
  webhook:
    enabled: true
    extra:
      host: 127.0.0.1
      port: PORT
      max_body_bytes: 32768
      rate_limit: 100000
      auth_failure_limit: 20
      trusted_proxies: ["127.0.0.0/8"]
      routes:
        ci:
          secret: ${SECRET}
        dev:
          secret: INSECURE_NO_AUTH
          events: [push, pull_request]
        gh:
          secret: ${SECRET}
          source: github
`;

interface FuzzRequest {
  method: string;
  path: string;
  headers: Array<[string, string]>;
  body: Buffer;
  sign: 'none' | 'generic' | 'github' | 'gitlab';
  chunked: boolean;
}

const pathChars = fc.constantFrom(
  ..."abcxyz019-_./?#=&%+~:@!$'()*,;[]".split(''),
  '%2',
  '%zz',
  '%41',
  '%E0%A4%A',
  '%ff',
  '%00',
  '..',
  '/webhooks/',
  'ci',
  'dev',
  'gh',
  '%C3%A9',
);
const pathArb = fc.oneof(
  fc.constantFrom(
    '/webhooks/ci',
    '/webhooks/dev',
    '/webhooks/gh',
    '/webhooks/nope',
    '/health',
    '/',
    '/webhooks/',
    '/webhooks/ci/',
    '/webhooks/%',
    '/webhooks/dev?x=%',
  ),
  fc.array(pathChars, { maxLength: 12 }).map((parts) => `/${parts.join('')}`),
  fc.array(pathChars, { maxLength: 8 }).map((parts) => `/webhooks/${parts.join('')}`),
);
const tokenChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_'.split(''));
const headerName = fc.oneof(
  fc.constantFrom(
    'content-type',
    'x-webhook-signature',
    'x-hub-signature-256',
    'x-hub-signature',
    'x-gitlab-token',
    'x-gitlab-event',
    'x-github-event',
    'x-github-delivery',
    'x-request-id',
    'x-codehosta-event',
    'x-codehostb-token',
    'x-forwarded-for',
    'idempotency-key',
    'webhook-id',
    'webhook-timestamp',
    'webhook-signature',
    'content-encoding',
    'expect',
  ),
  fc.array(tokenChar, { minLength: 1, maxLength: 20 }).map((c) => `x-${c.join('')}`),
);
// Header values as a client may send them: visible ASCII and Latin-1, spaces, tabs.
const headerValue = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((n) => String.fromCharCode(n)), maxLength: 120 }),
  fc.string({ unit: fc.integer({ min: 0xa0, max: 0xff }).map((n) => String.fromCharCode(n)), maxLength: 40 }),
  fc.constantFrom(
    'application/json',
    'application/x-www-form-urlencoded',
    'text/plain',
    'sha256=',
    `sha256=${'0'.repeat(64)}`,
    '203.0.113.9',
    '2001:db8::1, 10.0.0.1',
    'not-an-ip',
    '100-continue',
    'gzip',
    '',
    ' ',
  ),
);
const bodyArb = fc.oneof(
  fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)),
  fc.json({ maxDepth: 4 }).map((j) => Buffer.from(j)),
  fc
    .dictionary(fc.string({ maxLength: 12 }), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 6 })
    .map((o) => Buffer.from(JSON.stringify(o))),
  fc.record({ event_type: fc.constantFrom('push', 'pull_request', 'star', '', 'a\u0000b'), n: fc.integer() }).map((o) => Buffer.from(JSON.stringify(o))),
  fc.string({ maxLength: 200 }).map((s) => Buffer.from(`payload=${encodeURIComponent(s)}`)),
  fc.integer({ min: 30_000, max: 40_000 }).map((n) => Buffer.alloc(n, 0x7b)),
);
const requestArb: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
  path: pathArb,
  headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 8 }),
  body: bodyArb,
  sign: fc.constantFrom('none', 'generic', 'github', 'gitlab'),
  chunked: fc.boolean(),
});

function send(port: number, r: FuzzRequest): Promise<number | undefined> {
  const headers: Record<string, string> = {};
  for (const [name, value] of r.headers) headers[name] = value;
  const hmac = createHmac('sha256', SECRET).update(r.body).digest('hex');
  if (r.sign === 'generic') headers['x-webhook-signature'] = hmac;
  if (r.sign === 'github') headers['x-hub-signature-256'] = `sha256=${hmac}`;
  if (r.sign === 'gitlab') headers['x-gitlab-token'] = SECRET;
  const hasBody = r.method !== 'GET' && r.method !== 'HEAD';
  if (hasBody && !r.chunked) headers['content-length'] = String(r.body.length);
  headers.connection = 'close';
  return new Promise((resolve) => {
    let req;
    try {
      req = request({ host: '127.0.0.1', port, method: r.method, path: r.path, headers, timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
        res.on('error', () => resolve(res.statusCode));
      });
    } catch {
      // A request node's own client refuses to send (a path or header it cannot write) never reaches the gateway.
      resolve(undefined);
      return;
    }
    req.on('timeout', () => req.destroy(new Error('timeout')));
    // The gateway may answer and close before the whole body is sent (413, 401 before reading): that is fine.
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.message === 'timeout' ? -1 : undefined));
    req.end(hasBody ? r.body : undefined);
  });
}

describe('fuzzing a real gateway process (issue 20)', () => {
  let child: ChildProcess | undefined;
  let home: string;
  let output = '';

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('answers random methods, paths, headers and bodies without an undocumented 5xx, and stays up', async () => {
    home = mkdtempSync(join(tmpdir(), 'hookwise-fuzz-'));
    const port = await freePort();
    writeFileSync(join(home, 'config.yaml'), CONFIG.replace('PORT', String(port)));
    child = spawn(process.execPath, [CLI, 'gateway', 'run', '--log-format', 'json'], {
      env: testProcessEnv(home),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const deadline = Date.now() + 20_000;
    while (!output.includes('listening on')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the gateway did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }

    const statuses = new Map<number, number>();
    const bad: Array<{ status: number | undefined; request: FuzzRequest }> = [];
    await fc.assert(
      fc.asyncProperty(fc.array(requestArb, { minLength: 1, maxLength: 6 }), async (batch) => {
        const answers = await Promise.all(batch.map((r) => send(port, r)));
        answers.forEach((status, i) => {
          if (status === undefined) return;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status === -1 || (status >= 500 && status !== 503)) bad.push({ status, request: { ...batch[i], body: batch[i].body.subarray(0, 200) } });
        });
        return bad.length === 0;
      }),
      { seed: SEED, numRuns: 1500, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false, endOnFailure: true },
    );
    expect(bad).toEqual([]);
    // The run did reach the interesting answers, not only refusals.
    for (const status of [202, 400, 401, 404, 413]) expect(statuses.get(status) ?? 0).toBeGreaterThan(0);

    expect(child.exitCode).toBeNull();
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', platform: 'webhook' });
    // Nothing reached the handlers' last-resort error paths.
    expect(output).not.toMatch(/webhook handling failed|request failed:|uncaught|unhandled/i);
  }, 90_000);
});
