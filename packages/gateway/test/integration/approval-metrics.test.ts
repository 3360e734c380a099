// The approval metrics (issue 31) of a real gateway on a SQLite file, scraped over HTTP: requested, approved and
// denied (the operator's decision, as the dashboard makes it), expired (an approval nobody answered), and the time to a
// decision. Also: an approved answer goes out at once (JobQueue.makeDue), not at the held job's next recheck.
import type { TestGateway } from '@hookwise/testing';
import { isDone, recorded, send, shown, startWorkerGateway, until } from './worker-gateway';

jest.setTimeout(60_000);

let gw: TestGateway | undefined;
afterAll(async () => {
  await gw?.stop();
});

const held = (job: { status: string; note?: string }) => job.status === 'pending' && /waiting for approval/.test(job.note ?? '');

/** The operator's decision, as the dashboard makes it (without the admin API's own pump of the workers). */
async function decide(gw: TestGateway, jobId: string, decision: 'approve' | 'deny'): Promise<void> {
  const outcome = await gw.gateway.approvals.decide(jobId, decision, { platform: 'dashboard', id: 'operator' });
  expect(outcome.result).toBe(decision === 'approve' ? 'approved' : 'denied');
}

/** One series' value in Prometheus text, e.g. `hookwise_approvals_total{route="held",result="approved"}`. */
function value(metrics: string, series: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('approval metrics (SQLite store)', () => {
  it('counts requested, approved, denied and expired approvals by route, and the time to each decision', async () => {
    gw = await startWorkerGateway(
      'sqlite',
      {
        held: { prompt: 'Ship {name}?', approval: { approvers: ['telegram:alice'] } },
        // About 1.1 s: expires while the test watches.
        brief: { prompt: 'Ship {name}?', approval: { approvers: ['telegram:alice'], expires_hours: 0.0003 } },
      },
      { metrics: { enabled: true } },
    );
    await send(gw, 'held', 'am-1', { name: 'one' });
    await send(gw, 'held', 'am-2', { name: 'two' });
    await send(gw, 'brief', 'am-3', { name: 'three' });
    const first = await until(gw, 'am-1', held);
    const second = await until(gw, 'am-2', held);
    await new Promise((r) => setTimeout(r, 300)); // a measurable time to decision

    const approvedAt = Date.now();
    await decide(gw, first.id, 'approve');
    const delivered = await until(gw, 'am-1', isDone);
    const tookMs = Date.now() - approvedAt;
    expect(delivered.outcome ?? 'delivered').toBe('delivered');
    // A held job is looked at again every 5 s by default; makeDue sends it at once.
    expect(tookMs).toBeLessThan(2_500);
    expect(recorded(gw).map((d) => d.deliveryId)).toEqual(['am-1']);

    await decide(gw, second.id, 'deny');
    expect((await until(gw, 'am-2', isDone)).outcome).toBe('denied');
    expect((await until(gw, 'am-3', isDone, 15_000)).outcome).toBe('expired');

    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(value(metrics, 'hookwise_approvals_total{route="held",result="requested"}')).toBe(2);
    expect(value(metrics, 'hookwise_approvals_total{route="held",result="approved"}')).toBe(1);
    expect(value(metrics, 'hookwise_approvals_total{route="held",result="denied"}')).toBe(1);
    expect(value(metrics, 'hookwise_approvals_total{route="brief",result="requested"}')).toBe(1);
    expect(value(metrics, 'hookwise_approvals_total{route="brief",result="expired"}')).toBe(1);
    expect(value(metrics, 'hookwise_approvals_total{route="held",result="expired"}')).toBeUndefined();
    expect(value(metrics, 'hookwise_approval_decision_seconds_count{route="held",result="approved"}')).toBe(1);
    expect(value(metrics, 'hookwise_approval_decision_seconds_count{route="held",result="denied"}')).toBe(1);
    const approvedSeconds = value(metrics, 'hookwise_approval_decision_seconds_sum{route="held",result="approved"}')!;
    expect(approvedSeconds).toBeGreaterThanOrEqual(0.3);
    expect(approvedSeconds).toBeLessThan(30);
    expect(value(metrics, 'hookwise_approval_decision_seconds_bucket{le="5",route="held",result="approved"}')).toBe(1);
    // Expiry is no decision: its time is the route's expires_hours.
    expect(metrics).not.toContain('hookwise_approval_decision_seconds_count{route="brief"');
    expect((await shown(gw, 'am-1')).status).toBe('done');
  });
});
