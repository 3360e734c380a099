// Issue 34: a JSONata filter expression must never stop the gateway. `$sort`, order-by and `$distinct` run as one
// JSONata step, so JSONata's own 250 ms timeout (checked between steps) never fires; the gateway evaluates
// expressions off the event loop with a hard deadline and a memory limit. Each case sends a large signed push to a
// real gateway over real HTTP while polling /health, and checks the answer time, that /health keeps answering, the
// process's memory and that the gateway still evaluates expressions afterwards.
//
// /health's latency is bounded loosely on purpose: the 900 KB body is still read and parsed on the event loop (the
// pipeline's cost, before any filter), which takes 100-200 ms on a loaded 2-core CI machine. What this test guards is
// that the gateway is not frozen for the expression's run (before the fix: 25.9 s); exact latency belongs in a
// benchmark, not in a test that must pass on any machine.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signGithub, startTestGateway, type TestGateway } from '@hookwise/testing';
import { EXPRESSION_DEADLINE_MS, expressionWorkersStarted } from '@hookwise/gateway';

const SECRET = 'it-is-a-test-secret-0123456789';

/** 60,000 commits, about 893 KB: what took the gateway to `JavaScript heap out of memory` before. */
const commits = Array.from({ length: 60_000 }, (_, i) => ({ id: String(i).padStart(5, '0') }));
const HUGE = Buffer.from(JSON.stringify({ ref: 'refs/heads/main', commits }));
const HUGE_FILE = join(mkdtempSync(join(tmpdir(), 'hookwise-expr-')), 'huge.json');
writeFileSync(HUGE_FILE, HUGE);
const HUGE_SIGNATURE = signGithub(SECRET, HUGE);
const SMALL = Buffer.from(JSON.stringify({ ref: 'refs/heads/main', commits: commits.slice(0, 3) }));

const ROUTES: Record<string, string> = {
  sorted: "$sort(commits.id)[0] = 'a'",
  distinct: '$count($distinct(commits.id)) = 1',
  ordered: "commits^(>id)[0].id = 'a'",
  cheap: "commits[0].id = '00000'",
};

function config(extraRoutes: Record<string, unknown> = {}) {
  const routes: Record<string, unknown> = { ...extraRoutes };
  for (const [name, expression] of Object.entries(ROUTES)) routes[name] = { secret: SECRET, events: ['push'], filter: [{ expression }] };
  return { platforms: { webhook: { enabled: true, extra: { rate_limit: 1000, routes } } } };
}

function push(gw: TestGateway, route: string, body: Buffer, delivery: string) {
  return gw.post(route, body, { 'x-hub-signature-256': signGithub(SECRET, body), 'x-github-event': 'push', 'x-github-delivery': delivery });
}

/** The script of a client process that posts the huge body (so that sending 900 KB costs this process nothing). */
const POSTER = `
const [url, file, signature, delivery] = process.argv.slice(1);
fetch(url, { method: 'POST', body: require('node:fs').readFileSync(file), headers: { 'content-type': 'application/json',
  'x-hub-signature-256': signature, 'x-github-event': 'push', 'x-github-delivery': delivery } })
  .then(async (res) => process.stdout.write(JSON.stringify({ status: res.status, body: await res.json() })));
`;

/** Posts the huge push from a child process; resolves with the answer's status and body. */
function pushHuge(gw: TestGateway, route: string, delivery: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', POSTER, `${gw.url}/webhooks/${route}`, HUGE_FILE, HUGE_SIGNATURE, delivery], (err, stdout) =>
      err ? reject(err) : resolve(JSON.parse(stdout) as { status: number; body: unknown }),
    );
  });
}

/**
 * The longest /health may wait while a huge event is processed: far below the 25.9 s freeze the issue reproduced (an
 * expression evaluated on the event loop fails it), and ten times what parsing a 900 KB body costs on a busy machine.
 */
const HEALTH_GAP_BOUND_MS = 2000;

/** Polls /health every 20 ms until stopped; resolves with the slowest answer's time in ms. */
function pollHealth(url: string): { stop: () => Promise<number> } {
  let running = true;
  let slowest = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${url}/health`);
      await res.arrayBuffer();
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return slowest;
    },
  };
}

describe('filter expressions are bounded (issue 34)', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
  });

  it.each([
    ['sorted', '$sort'],
    ['distinct', '$distinct'],
    ['ordered', 'order-by'],
  ])(
    'route %s (%s over 60,000 commits): answered within the deadline, /health keeps answering meanwhile, memory bounded',
    async (route) => {
      gw = await startTestGateway({ config: config() });
      // Warm the pool with a cheap event, so the measured request is the expression's own cost.
      expect((await push(gw, 'cheap', SMALL, `warm-${route}`)).status).toBe(202);
      global.gc?.();
      const rssBefore = process.memoryUsage().rss;
      const health = pollHealth(gw.url);
      const started = performance.now();
      const res = await pushHuge(gw, route, `huge-${route}`);
      const elapsed = performance.now() - started;
      const slowestHealth = await health.stop();
      const rssGrowth = process.memoryUsage().rss - rssBefore;

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ignored', event: 'push', reason: 'filter' });
      // The deadline, plus starting the client process, sending and parsing the body: generous, because a loaded
      // 2-core CI machine stretches all of that (runs of 3.3-4 s were seen); before, the gateway froze for 25.9 s
      // or died. The exact latency belongs in a benchmark.
      expect(elapsed).toBeLessThan(EXPRESSION_DEADLINE_MS + 10_000);
      // Not frozen while the expression runs in its worker.
      expect(slowestHealth).toBeLessThan(HEALTH_GAP_BOUND_MS);
      // The worker's heap is limited; before, 40,000 commits took the gateway to 3.4 GB.
      expect(rssGrowth).toBeLessThan(400 * 1024 * 1024);
      // Counted as not passed, with a warning that says why and what to do.
      const warning = await gw.waitForLog(new RegExp(`route '${route}'.*filtered out|filtered out by route '${route}'`));
      expect(warning.level).toBe('warn');
      expect(String(warning.message)).toMatch(/did not finish within \d+ ms|ran out of memory|timeout/i);

      // Alive afterwards, and the replaced worker still evaluates.
      expect((await fetch(`${gw.url}/health`)).status).toBe(200);
      expect((await push(gw, 'cheap', SMALL, `after-${route}`)).status).toBe(202);
    },
    30_000,
  );

  it('a flood of slow payloads is bounded: every request is answered, /health stays fast', async () => {
    gw = await startTestGateway({ config: config() });
    const health = pollHealth(gw.url);
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => pushHuge(gw!, 'sorted', `flood-${i}`)));
    const slowestHealth = await health.stop();
    for (const res of answers) expect(res.body).toEqual({ status: 'ignored', event: 'push', reason: 'filter' });
    // Four 900 KB bodies are read and parsed on the event loop (the pipeline's cost, before any filter), so /health
    // may wait for those; before, it waited for every evaluation in turn (four times the freeze).
    expect(slowestHealth).toBeLessThan(HEALTH_GAP_BOUND_MS);
    expect((await push(gw, 'cheap', SMALL, 'after-flood')).status).toBe(202);
  }, 30_000);

  it('routes without expressions start no worker', async () => {
    const before = expressionWorkersStarted();
    gw = await startTestGateway({
      config: {
        platforms: {
          webhook: {
            enabled: true,
            extra: { routes: { plain: { secret: SECRET, events: ['push'], filter: [{ path: 'ref', equals: 'refs/heads/main' }] } } },
          },
        },
      },
    });
    expect((await push(gw, 'plain', SMALL, 'plain-1')).status).toBe(202);
    expect(expressionWorkersStarted()).toBe(before);
  });
});
