// Usage sums in-process, on a real memory store: the period's jobs only, whether the scan saw all of them, the
// periods people type, and the "12/20" figures.
import { createMemoryStore, USAGE_SCAN_LIMIT, againstLimit, parseSince, storedJobsSince } from '@hookwise/gateway';
import { sumJobs } from '../../src/jobs/usage-report';

const HOUR = 3_600_000;

describe('parseSince', () => {
  const now = Date.parse('2026-06-15T12:00:00Z');
  it('takes a duration back from now or a point in time', () => {
    expect(parseSince('30m', now)).toBe(now - 30 * 60_000);
    expect(parseSince('24h', now)).toBe(now - 24 * HOUR);
    expect(parseSince('7d', now)).toBe(now - 7 * 24 * HOUR);
    expect(parseSince('2026-06-01T00:00:00Z', now)).toBe(Date.parse('2026-06-01T00:00:00Z'));
  });
  it('says what it accepts otherwise', () => {
    for (const text of ['yesterday', '24', '-1h', '1w', '12345']) {
      expect(parseSince(text, now)).toEqual({ problem: expect.stringContaining('such as 30m, 24h or 7d, or a time such as 2026-01-31T12:00:00Z') });
    }
  });
});

describe('storedJobsSince and sumJobs', () => {
  it('sums the jobs received in the period, per route', async () => {
    const store = createMemoryStore();
    const now = Date.now();
    const job = (route: string, deliveryId: string, receivedAt: number) => store.jobs.enqueue({ route, event: 'push', deliveryId, payload: {}, receivedAt });
    await job('ci', 'old', now - 3 * HOUR);
    await job('ci', 'new-1', now - HOUR / 2);
    await job('docs', 'new-2', now - HOUR / 4);
    const { jobs, complete } = await storedJobsSince(store.jobs, now - HOUR);
    expect(complete).toBe(true);
    expect(jobs.map((j) => j.deliveryId).sort()).toEqual(['new-1', 'new-2']);
    const sums = sumJobs(jobs, now - HOUR);
    expect([...sums.keys()].sort()).toEqual(['ci', 'docs']);
    expect(sums.get('ci')).toMatchObject({ jobs: 1, events: 1, open: 1, agentRuns: 0, inputTokens: 0 });
    await store.close();
  });

  it('says when the period holds more jobs than it reads', async () => {
    const store = createMemoryStore();
    const now = Date.now();
    // In arrival order, as a gateway stores them: the oldest first.
    for (let i = USAGE_SCAN_LIMIT; i >= 0; i -= 1)
      await store.jobs.enqueue({ route: 'ci', event: 'push', deliveryId: `d-${i}`, payload: {}, receivedAt: now - i });
    const all = await storedJobsSince(store.jobs, now - 2 * HOUR);
    expect(all).toMatchObject({ complete: false });
    expect(all.jobs).toHaveLength(USAGE_SCAN_LIMIT);
    // A period that ends inside what was read is complete.
    const recent = await storedJobsSince(store.jobs, now - 100);
    expect(recent.complete).toBe(true);
    expect(recent.jobs).toHaveLength(101);
    await store.close();
  });
});

describe('againstLimit', () => {
  it('shows a count against its limit, alone, or the limit with nothing counted', () => {
    expect(againstLimit(12, 20, 'runs this hour')).toBe('12/20 runs this hour');
    expect(againstLimit(3400, 100_000)).toBe('3,400/100,000');
    expect(againstLimit(7, undefined)).toBe('7');
    expect(againstLimit(undefined, 20)).toBe('?/20');
    expect(againstLimit(undefined, undefined)).toBe('-');
  });
});
