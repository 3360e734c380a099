// The request path's store-call deadline (ingest/store-call.ts): one timer per deadline length for all calls
// in flight, so these check that every call still gets its own answer and its own deadline.
import { withinDeadline } from '../../src/ingest/store-call';

const never = (): Promise<never> => new Promise<never>(() => undefined);
const after = <T>(ms: number, value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), ms));

describe('withinDeadline', () => {
  it("passes on a call's value and its rejection", async () => {
    await expect(withinDeadline(Promise.resolve(7), 1000)).resolves.toBe(7);
    const failure = new Error('SQLITE_BUSY');
    await expect(withinDeadline(Promise.reject(failure), 1000)).rejects.toBe(failure);
  });

  it('rejects a call that does not settle in time, saying how long it waited', async () => {
    const started = Date.now();
    await expect(withinDeadline(never(), 80)).rejects.toThrow('the store did not answer within 80 ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
  });

  it('gives each call its own deadline when calls overlap, and keeps working after a timeout', async () => {
    const late = withinDeadline(never(), 120);
    await after(60, undefined);
    // Started 60 ms later: still waiting when the first one times out.
    const later = withinDeadline(never(), 120);
    const quick = withinDeadline(after(20, 'quick'), 120);
    const slowButInTime = withinDeadline(after(150, 'in time'), 120 + 200);
    const outcomes = await Promise.allSettled([late, later, quick, slowButInTime]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: 'quick' });
    expect(outcomes[3]).toEqual({ status: 'fulfilled', value: 'in time' });
    // The queue's timer was re-armed and torn down: a new call still gets its deadline.
    await expect(withinDeadline(never(), 30)).rejects.toThrow('within 30 ms');
    await expect(withinDeadline(after(5, 'again'), 30)).resolves.toBe('again');
  });

  it('rejects the overlapping calls no earlier than their own deadlines', async () => {
    const started = Date.now();
    const times: number[] = [];
    const first = withinDeadline(never(), 100).catch(() => times.push(Date.now() - started));
    await after(50, undefined);
    const second = withinDeadline(never(), 100).catch(() => times.push(Date.now() - started));
    await Promise.all([first, second]);
    expect(times[0]).toBeGreaterThanOrEqual(95);
    expect(times[1]).toBeGreaterThanOrEqual(145);
  });
});
