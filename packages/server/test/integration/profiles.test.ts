// Profiles hosted side by side on one gateway, over real HTTP with SQLite stores: each profile's routes answer under
// /p/<name>/ only, a signature made for one profile's route is refused on another's URL, every log line, metric and
// admin record names its profile, and `?profile=` selects one profile in the admin API. The Express ingest path
// serves /p/<name>/ as the direct one does.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signGeneric, startTestGateway, type TestGateway } from '@hookwise/testing';

const DEFAULT_SECRET = 'default-profile-secret-0123456789';
const ACME_SECRET = 'acme-profile-secret-0123456789ab';
const BETA_SECRET = 'beta-profile-secret-0123456789cd';

const route = (secret: string, prompt: string) => ({ secret, deliver: 'log', prompt });

function profileConfig(routes: Record<string, unknown>): string {
  return JSON.stringify({ platforms: { webhook: { extra: { routes } } } });
}

async function post(gw: TestGateway, path: string, secret: string, payload: Record<string, unknown>, deliveryId: string) {
  const body = JSON.stringify(payload);
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signGeneric(secret, body), 'x-request-id': deliveryId },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface Record_ {
  profile: string;
  deliveryId: string;
  receivedAt: number;
  route: string;
  status: string;
}
interface ApiBody {
  deliveries: Record_[];
  delivery: Record_;
  usage: { routes: Array<{ profile: string; route: string }> };
  error: string;
}

async function api(gw: TestGateway, path: string) {
  const res = await fetch(`${gw.url}${path}`);
  return { status: res.status, body: (await res.json()) as ApiBody };
}

async function settled(gw: TestGateway, profile: string, count: number): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    const { body } = await api(gw, `/api/deliveries?profile=${profile}&limit=100`);
    const jobs = body.deliveries;
    if (jobs.length >= count && jobs.every((j) => j.status === 'done' || j.status === 'dead')) return;
    if (Date.now() > until) throw new Error(`profile ${profile}: jobs not settled: ${JSON.stringify(jobs)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Collects the `changes` messages of GET /api/stream<query> until stopped. */
function listen(gw: TestGateway, query: string) {
  const controller = new AbortController();
  const messages: Array<{ events: Record<string, number>; jobs: string[] }> = [];
  const done = (async () => {
    const res = await fetch(`${gw.url}/api/stream${query}`, { signal: controller.signal });
    let text = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += Buffer.from(chunk).toString('utf8');
      for (let match = /event: changes\ndata: (.*)\n\n/.exec(text); match; match = /event: changes\ndata: (.*)\n\n/.exec(text)) {
        messages.push(JSON.parse(match[1]));
        text = text.slice(match.index + match[0].length);
      }
    }
  })().catch(() => undefined);
  return { messages, stop: () => (controller.abort(), done) };
}

describe('profiles hosted on one gateway', () => {
  let gw: TestGateway;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookwise-profiles-'));
    for (const [name, routes] of [
      ['acme', { ci: route(ACME_SECRET, 'acme ci {ref}'), build: route(ACME_SECRET, 'acme build') }],
      ['beta', { ci: route(BETA_SECRET, 'beta ci {ref}') }],
    ] as const) {
      mkdirSync(join(dir, 'profiles', name), { recursive: true });
      writeFileSync(join(dir, 'profiles', name, 'config.yaml'), profileConfig(routes));
    }
    mkdirSync(join(dir, 'profiles', 'Bad Name'));
    gw = await startTestGateway({
      configDir: dir,
      config: {
        platforms: { webhook: { enabled: true, extra: { routes: { ci: route(DEFAULT_SECRET, 'default ci {ref}') } } } },
        agent: { runner: 'echo' },
        store: { backend: 'sqlite', path: join(dir, 'hookwise.sqlite') },
        admin: { enabled: true },
        metrics: { enabled: true },
      },
      pollMs: 20,
    });
  });

  afterAll(async () => {
    await gw?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves each profile's routes under /p/<name>/ only, the default profile's at the unprefixed URL", async () => {
    expect((await post(gw, '/webhooks/ci', DEFAULT_SECRET, { ref: 'main' }, 'd-1')).status).toBe(202);
    expect((await post(gw, '/p/acme/webhooks/ci', ACME_SECRET, { ref: 'main' }, 'a-1')).status).toBe(202);
    expect((await post(gw, '/p/acme/webhooks/build', ACME_SECRET, {}, 'a-2')).status).toBe(202);
    expect((await post(gw, '/p/beta/webhooks/ci', BETA_SECRET, { ref: 'main' }, 'b-1')).status).toBe(202);
    // acme's `build` is not the default profile's, nor beta's.
    expect((await post(gw, '/webhooks/build', ACME_SECRET, {}, 'x-1')).status).toBe(404);
    expect((await post(gw, '/p/beta/webhooks/build', ACME_SECRET, {}, 'x-2')).status).toBe(404);
    await settled(gw, 'acme', 2);
    await settled(gw, 'beta', 1);
    await settled(gw, 'default', 1);
  });

  it("refuses on beta's URL a signature that is valid for acme's route of the same name", async () => {
    const refused = await post(gw, '/p/beta/webhooks/ci', ACME_SECRET, { ref: 'evil' }, 'x-3');
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('Invalid signature');
    // Nor is the default profile's secret valid for a profile's route.
    expect((await post(gw, '/p/acme/webhooks/ci', DEFAULT_SECRET, { ref: 'evil' }, 'x-4')).status).toBe(401);
  });

  it('answers 404 with a clear error for a profile that is not hosted, and warns about a misnamed folder at startup', async () => {
    const unknown = await post(gw, '/p/gamma/webhooks/ci', ACME_SECRET, {}, 'x-5');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/no profile 'gamma' on this gateway/);
    expect(gw.logText()).toMatch(/profiles\/Bad Name is not served: 'Bad Name' is not a profile name/);
  });

  it('lists only the chosen profile with ?profile=, every profile merged without it, each record naming its profile', async () => {
    const acme = await api(gw, '/api/deliveries?profile=acme');
    expect(acme.body.deliveries.map((d) => [d.profile, d.deliveryId]).sort()).toEqual([
      ['acme', 'a-1'],
      ['acme', 'a-2'],
    ]);
    const own = await api(gw, '/api/deliveries?profile=default');
    expect(own.body.deliveries.map((d) => [d.profile, d.deliveryId])).toEqual([['default', 'd-1']]);
    const all = await api(gw, '/api/deliveries?limit=3');
    expect(all.body.deliveries).toHaveLength(3);
    const received = all.body.deliveries.map((d) => d.receivedAt);
    expect([...received].sort((a, b) => b - a)).toEqual(received);
    const every = await api(gw, '/api/deliveries');
    expect(new Set(every.body.deliveries.map((d) => d.profile))).toEqual(new Set(['default', 'acme', 'beta']));
    // A single job is found in whichever profile holds it, and named so.
    const shown = await api(gw, '/api/deliveries/b-1');
    expect(shown.body.delivery).toMatchObject({ deliveryId: 'b-1', profile: 'beta', route: 'ci' });
    expect((await api(gw, '/api/deliveries/b-1?profile=acme')).status).toBe(404);
    const unknown = await api(gw, '/api/deliveries?profile=gamma');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/^no profile 'gamma'/);
    const usage = await api(gw, '/api/usage?profile=acme');
    expect(usage.body.usage.routes.map((r) => [r.profile, r.route]).sort()).toEqual([
      ['acme', 'build'],
      ['acme', 'ci'],
    ]);
  });

  it('streams to GET /api/stream?profile= the changes of that profile only; without it, of every profile', async () => {
    const acme = listen(gw, '?profile=acme');
    const beta = listen(gw, '?profile=beta');
    const every = listen(gw, '');
    await new Promise((r) => setTimeout(r, 200));
    expect((await post(gw, '/p/acme/webhooks/ci', ACME_SECRET, { ref: 'streamed' }, 'a-stream')).status).toBe(202);
    const until = Date.now() + 10_000;
    while ((acme.messages.length === 0 || every.messages.length === 0) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    // Beta's listener had the same time and more (the batch window is 300 ms) to hear anything.
    await new Promise((r) => setTimeout(r, 700));
    await Promise.all([acme.stop(), beta.stop(), every.stop()]);
    expect(acme.messages.some((m) => (m.events.accepted ?? 0) >= 1)).toBe(true);
    expect(every.messages.some((m) => (m.events.accepted ?? 0) >= 1)).toBe(true);
    expect(beta.messages).toEqual([]);
  });

  it("names the profile on every log line of a profile's gateway and labels every metric series", async () => {
    const acmeLines = gw.logs.filter((line) => line.profile === 'acme');
    expect(acmeLines.length).toBeGreaterThan(0);
    expect(acmeLines.some((line) => /a-1/.test(String(line.message)) || line.delivery_id === 'a-1')).toBe(true);
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    const series = text.split('\n').filter((line) => line && !line.startsWith('#'));
    expect(series.every((line) => /profile="[a-z0-9_-]+"/.test(line))).toBe(true);
    expect(text).toMatch(/hookwise_webhook_requests_total\{[^}]*route="ci"[^}]*profile="acme"[^}]*\} 1/);
    expect(text).toMatch(/hookwise_webhook_requests_total\{[^}]*route="ci"[^}]*profile="default"[^}]*\} 1/);
  });
});

describe("profiles on the Express ingest path (ingest: 'express')", () => {
  let gw: TestGateway;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookwise-profiles-express-'));
    mkdirSync(join(dir, 'profiles', 'acme'), { recursive: true });
    writeFileSync(join(dir, 'profiles', 'acme', 'config.yaml'), profileConfig({ ci: route(ACME_SECRET, 'acme ci {ref}') }));
    gw = await startTestGateway({
      configDir: dir,
      config: {
        platforms: { webhook: { enabled: true, extra: { routes: { ci: route(DEFAULT_SECRET, 'default ci {ref}') } } } },
        agent: { runner: 'echo' },
        admin: { enabled: true },
      },
      ingest: 'express',
      pollMs: 20,
    });
  });

  afterAll(async () => {
    await gw?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves a profile's routes at /p/<name>/webhooks/<route> as the direct path does", async () => {
    expect((await post(gw, '/p/acme/webhooks/ci', ACME_SECRET, { ref: 'main' }, 'e-1')).status).toBe(202);
    expect((await post(gw, '/webhooks/ci', DEFAULT_SECRET, { ref: 'main' }, 'e-2')).status).toBe(202);
    // The profile's own secret only, and only its own routes.
    expect((await post(gw, '/p/acme/webhooks/ci', DEFAULT_SECRET, { ref: 'evil' }, 'e-3')).status).toBe(401);
    expect((await post(gw, '/p/acme/webhooks/build', ACME_SECRET, {}, 'e-4')).status).toBe(404);
    const unknown = await post(gw, '/p/gamma/webhooks/ci', ACME_SECRET, {}, 'e-5');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/no profile 'gamma' on this gateway/);
    expect((await fetch(`${gw.url}/p/acme/webhooks/ci`)).status).toBe(405);
    await settled(gw, 'acme', 1);
    const acme = await api(gw, '/api/deliveries?profile=acme');
    expect(acme.body.deliveries.map((d) => [d.profile, d.deliveryId])).toEqual([['acme', 'e-1']]);
  });
});
