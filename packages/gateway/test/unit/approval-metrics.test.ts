import { Registry } from 'prom-client';
import * as client from 'prom-client';
import { approvalMetrics } from '../../src/observe/approval-metrics';
import { Lifecycle } from '../../src/observe/lifecycle';

// The approval metrics' sources of the request time: the approval_requested event this process saw, else (a decision
// on another gateway, or after a restart) the approval record; nothing observed when neither knows it.

function setup(recorded: Record<string, number>) {
  const lifecycle = new Lifecycle();
  const registry = new Registry();
  let now = 1_000_000;
  const asked: string[] = [];
  approvalMetrics({
    client,
    registry,
    routeLabel: (route) => route,
    on: (name, listener) => lifecycle.on(name, listener),
    requestedAt: async (jobId) => {
      asked.push(jobId);
      return recorded[jobId];
    },
    now: () => now,
  });
  return { lifecycle, registry, asked, advance: (ms: number) => (now += ms) };
}

const text = async (registry: Registry, name: string) => (await registry.getSingleMetricAsString(name)).split('\n');
const requested = (jobId: string) => ({ jobId, route: 'r', deliveryId: `d-${jobId}`, event: 'push', attempt: 1, approvers: ['alice'], expiresAt: 0 });
const decision = (jobId: string) => ({ jobId, route: 'r', deliveryId: `d-${jobId}`, by: 'dashboard' });

describe('approval metrics', () => {
  it('measures from the request this process saw, without reading the record', async () => {
    const { lifecycle, registry, asked, advance } = setup({});
    lifecycle.emit('approval_requested', requested('j1'));
    advance(42_000);
    lifecycle.emit('approved', decision('j1'));
    const lines = await text(registry, 'hookwise_approval_decision_seconds');
    expect(lines).toContain('hookwise_approval_decision_seconds_sum{route="r",result="approved"} 42');
    expect(lines).toContain('hookwise_approval_decision_seconds_bucket{le="60",route="r",result="approved"} 1');
    expect(lines).toContain('hookwise_approval_decision_seconds_bucket{le="30",route="r",result="approved"} 0');
    expect(asked).toEqual([]);
  });

  it("reads the record's request time for a decision whose request another gateway made", async () => {
    const { lifecycle, registry, asked } = setup({ j2: 1_000_000 - 90_000 });
    lifecycle.emit('denied', decision('j2'));
    await new Promise((r) => setImmediate(r));
    expect(asked).toEqual(['j2']);
    const lines = await text(registry, 'hookwise_approval_decision_seconds');
    expect(lines).toContain('hookwise_approval_decision_seconds_sum{route="r",result="denied"} 90');
    expect(await text(registry, 'hookwise_approvals_total')).toContain('hookwise_approvals_total{route="r",result="denied"} 1');
  });

  it('counts a decision without a known request time, observing no time', async () => {
    const { lifecycle, registry } = setup({});
    lifecycle.emit('approved', decision('j3'));
    await new Promise((r) => setImmediate(r));
    expect(await text(registry, 'hookwise_approvals_total')).toContain('hookwise_approvals_total{route="r",result="approved"} 1');
    expect((await text(registry, 'hookwise_approval_decision_seconds')).some((l) => l.startsWith('hookwise_approval_decision_seconds_count'))).toBe(false);
  });

  it('counts expired from the completed event and no other outcome', async () => {
    const { lifecycle, registry } = setup({});
    const completed = (jobId: string, outcome: 'expired' | 'denied' | 'delivered') => ({
      jobId,
      route: 'r',
      deliveryId: `d-${jobId}`,
      event: 'push',
      attempt: 1,
      outcome,
      destinations: [],
    });
    lifecycle.emit('completed', completed('j4', 'expired'));
    lifecycle.emit('completed', completed('j5', 'denied'));
    lifecycle.emit('completed', completed('j6', 'delivered'));
    const lines = (await text(registry, 'hookwise_approvals_total')).filter((l) => !l.startsWith('#') && l !== '');
    expect(lines).toEqual(['hookwise_approvals_total{route="r",result="expired"} 1']);
  });
});
