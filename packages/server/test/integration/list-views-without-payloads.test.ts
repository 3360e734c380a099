// Issue 34: the dashboard's and the admin API's list views draw summary rows, so they read no payload: with 120
// stored ~1 MB payloads, one /ui view took the gateway from 140 to 565 MB. A real gateway on its SQLite store; the
// bytes the store hands out to list views are counted on the store instance itself (a count, unlike RSS, cannot
// flake), and only an event's own page still reads its payload.
import type { Job, JobSummary } from '@hookwise/core';
import { startTestGateway, type TestGateway } from '@hookwise/testing';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

const JOBS = 120;
const BLOB = 'x'.repeat(1_000_000);

/** Sums the JSON size of everything the store's list reads return, from now on. */
function countListedBytes(jobs: TestGateway['gateway']['store']['jobs']): { bytes: () => number } {
  let bytes = 0;
  const count = <T extends Job | JobSummary>(items: T[]) => {
    for (const item of items) bytes += JSON.stringify(item).length;
    return items;
  };
  const list = jobs.list.bind(jobs);
  jobs.list = async (filter) => count(await list(filter));
  const listSummaries = jobs.listSummaries?.bind(jobs);
  if (listSummaries) jobs.listSummaries = async (filter) => count(await listSummaries(filter));
  return { bytes: () => bytes };
}

describe('list views over large stored payloads', () => {
  it('read summaries only: the dashboard, its fragments and the admin list handle under 2 MB for 120 MB stored', async () => {
    gw = await startTestGateway({
      config: {
        platforms: { webhook: { enabled: true, extra: { routes: { big: { secret: 'INSECURE_NO_AUTH', prompt: 'ref {ref}', deliver: 'none' } } } } },
        admin: { ui: true },
      },
    });
    const { jobs } = gw.gateway.store;
    expect(jobs.listSummaries).toBeDefined();
    const ids: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const job = await jobs.enqueue({ route: 'big', event: 'push', deliveryId: `big-${i}`, payload: { ref: `r${i}`, blob: BLOB }, receivedAt: Date.now() });
      ids.push(job.id);
    }
    const listed = countListedBytes(jobs);

    for (const path of ['/ui', '/ui/?status=done', '/ui/fragments/events', '/ui/fragments/usage', '/api/deliveries?limit=500', '/api/usage']) {
      const res = await fetch(`${gw.url}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect((await res.arrayBuffer()).byteLength).toBeLessThan(2_000_000);
    }
    // Summaries of 120 jobs, read by six views: a few hundred KB. Before, each view read the 120 MB of payloads.
    expect(listed.bytes()).toBeLessThan(2_000_000);

    const rows = (await (await fetch(`${gw.url}/api/deliveries?limit=500`)).json()) as { deliveries: Array<{ deliveryId: string; events: number }> };
    expect(rows.deliveries).toHaveLength(JOBS);
    expect(rows.deliveries[0]).toMatchObject({ deliveryId: `big-${JOBS - 1}`, events: 1 });

    // An event's own page and full=1 still show the payload.
    const own = (await (await fetch(`${gw.url}/api/deliveries/${ids[0]}`)).json()) as { delivery: { payload: { blob: string } } };
    expect(own.delivery.payload.blob).toHaveLength(BLOB.length);
    const full = (await (await fetch(`${gw.url}/api/deliveries?full=1&limit=1`)).json()) as { deliveries: Array<{ payload: { ref: string } }> };
    expect(full.deliveries[0].payload.ref).toBe(`r${JOBS - 1}`);
  }, 60_000);
});
