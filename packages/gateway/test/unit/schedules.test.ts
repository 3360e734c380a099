// The scheduler on the memory store with a virtual clock: each tick is one job of event `schedule`, claimed once
// however many schedulers share the store; missed ticks are caught up at start as `catch_up` says; and croner's
// reading of Europe/Berlin's daylight-saving changes neither skips nor doubles a tick.
import type { Store } from '@hookwise/core';
import { acceptorOf, JobRoutes } from '../../src/ingest/accept-step';
import { createLogger } from '../../src/observe/logger';
import { toRoute } from '../../src/routes/routes';
import type { ScheduleConfig } from '../../src/config/schedule-schema';
import { ScheduleTicks, scheduleProblems } from '../../src/schedules/schedule-ticks';
import { Scheduler } from '../../src/schedules/scheduler';
import { createMemoryStore } from '../../src/stores/memory';
import { VirtualClock } from '../schedule-clock';

const BERLIN = 'Europe/Berlin';

function scheduler(store: Store, clock: VirtualClock, schedule: ScheduleConfig, name = 'daily'): Scheduler {
  const route = toRoute(name, { secret: 'x', schedule: { catch_up: 'latest', ...schedule } }, 'static');
  return new Scheduler({
    scheduledRoutes: () => [route],
    route: (wanted) => (wanted === name ? route : undefined),
    accept: acceptorOf(store),
    jobRoutes: new JobRoutes(),
    limits: { rateLimit: 10_000, maxBodyBytes: 1 << 20, maxPending: 10_000 },
    memos: store.memos!,
    logger: createLogger({ silent: true }),
    clock,
  });
}

/** The delivery ids of the route's jobs, oldest tick first. */
async function jobIds(store: Store, route = 'daily'): Promise<string[]> {
  return (await store.jobs.list({ route })).map((job) => job.deliveryId).sort();
}

let store: Store;
beforeEach(() => {
  store = createMemoryStore();
});
afterEach(() => store.close());

describe('schedule ticks (croner in a time zone)', () => {
  it('reads the expression in its time zone and in UTC without one', () => {
    const berlin = new ScheduleTicks({ cron: '0 9 * * 1-5', timezone: BERLIN });
    // Friday 2026-03-27 after 09:00 CET: the next weekday is Monday, after the change to CEST.
    expect(new Date(berlin.nextAfter(Date.parse('2026-03-27T12:00:00Z'))!).toISOString()).toBe('2026-03-30T07:00:00.000Z');
    const utc = new ScheduleTicks({ cron: '0 9 * * *' });
    expect(new Date(utc.nextAfter(Date.parse('2026-03-27T12:00:00Z'))!).toISOString()).toBe('2026-03-28T09:00:00.000Z');
  });

  it('finds the latest tick of a span, also far back and for a per-second expression', () => {
    const daily = new ScheduleTicks({ cron: '0 9 * * *' });
    expect(new Date(daily.latestIn(Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-03-27T12:00:00Z'))!).toISOString()).toBe('2026-03-27T09:00:00.000Z');
    expect(daily.latestIn(Date.parse('2026-03-27T09:00:00Z'), Date.parse('2026-03-27T12:00:00Z'))).toBeUndefined();
    const everySecond = new ScheduleTicks({ cron: '* * * * * *' });
    expect(everySecond.latestIn(0, Date.parse('2026-03-27T12:00:00.500Z'))).toBe(Date.parse('2026-03-27T12:00:00Z'));
  });

  it('names a bad expression, a bad time zone, one that never fires, and a schedule on a subscription', () => {
    const problems = (schedule: ScheduleConfig, origin: 'static' | 'subscription' = 'static') => scheduleProblems({ name: 'r', origin, schedule });
    expect(problems({ cron: '61 9 * * *' })).toEqual([
      expect.stringMatching(/^route 'r' schedule\.cron '61 9 \* \* \*' is no cron expression \(.*minute.*\): use five fields/),
    ]);
    expect(problems({ cron: '0 9 * * *', timezone: 'Europe/Berlim' })).toEqual([
      "route 'r' schedule.timezone 'Europe/Berlim' is no IANA time zone: use a name like Europe/Berlin or America/New_York (default UTC)",
    ]);
    expect(problems({ cron: '0 0 30 2 *' })).toEqual(["route 'r' schedule.cron '0 0 30 2 *' never fires (no such date): check the day and month fields"]);
    expect(problems({ cron: '0 9 * * *' }, 'subscription')).toEqual([
      "route 'r' schedule: only routes in config.yaml run on a schedule; move the route to config.yaml or leave schedule out of the subscription",
    ]);
    expect(problems({ cron: '0 9 * * 1-5', timezone: BERLIN })).toEqual([]);
  });
});

describe('Scheduler', () => {
  it('runs a tick once: one job of event schedule with the payload and scheduled_at', async () => {
    const clock = VirtualClock.at('2026-03-02T07:00:00Z');
    const schedules = scheduler(store, clock, { cron: '0 9 * * 1-5', timezone: BERLIN, payload: { task: 'standup' } });
    await schedules.start();
    expect(await jobIds(store)).toEqual([]);
    await clock.advanceTo('2026-03-02T08:30:00Z');
    const [job] = await store.jobs.list({ route: 'daily' });
    expect(job).toMatchObject({ event: 'schedule', deliveryId: 'schedule:daily:2026-03-02T08:00:00.000Z' });
    expect(job.payload).toEqual({ task: 'standup', scheduled_at: '2026-03-02T08:00:00.000Z' });
    // The same tick tried again (another gateway, a repeated timer) is a duplicate of the claimed id.
    const again = scheduler(store, VirtualClock.at('2026-03-02T08:00:00Z'), { cron: '0 9 * * 1-5', timezone: BERLIN });
    await again.start();
    await again.stop();
    await clock.advanceTo('2026-03-06T12:00:00Z');
    expect(await jobIds(store)).toEqual([
      'schedule:daily:2026-03-02T08:00:00.000Z',
      'schedule:daily:2026-03-03T08:00:00.000Z',
      'schedule:daily:2026-03-04T08:00:00.000Z',
      'schedule:daily:2026-03-05T08:00:00.000Z',
      'schedule:daily:2026-03-06T08:00:00.000Z',
    ]);
    await schedules.stop();
    expect(clock.pending).toBe(0);
  });

  it('two schedulers on one store run each tick once', async () => {
    const clocks = [VirtualClock.at('2026-03-02T06:59:00Z'), VirtualClock.at('2026-03-02T06:59:00Z')];
    const both = clocks.map((clock) => scheduler(store, clock, { cron: '*/15 * * * *' }));
    await Promise.all(both.map((s) => s.start()));
    await Promise.all(clocks.map((clock) => clock.advanceTo('2026-03-02T08:00:00Z')));
    expect(await jobIds(store)).toEqual(
      ['00', '15', '30', '45'].map((m) => `schedule:daily:2026-03-02T07:${m}:00.000Z`).concat('schedule:daily:2026-03-02T08:00:00.000Z'),
    );
    await Promise.all(both.map((s) => s.stop()));
  });

  it('catch_up latest: a start after missed ticks runs the latest of them once', async () => {
    const first = scheduler(store, VirtualClock.at('2026-03-02T07:00:00Z'), { cron: '0 9 * * *', timezone: BERLIN });
    await first.start();
    await first.stop();
    // Down from Monday 08:00 CET to Thursday noon: Mon, Tue, Wed and Thu 09:00 were missed.
    const clock = VirtualClock.at('2026-03-05T11:00:00Z');
    const second = scheduler(store, clock, { cron: '0 9 * * *', timezone: BERLIN });
    await second.start();
    expect(await jobIds(store)).toEqual(['schedule:daily:2026-03-05T08:00:00.000Z']);
    await second.stop();
    // Started again without a missed tick: nothing more; then the next tick on time.
    const third = scheduler(store, clock, { cron: '0 9 * * *', timezone: BERLIN });
    await third.start();
    expect(await jobIds(store)).toHaveLength(1);
    await clock.advanceTo('2026-03-06T08:00:00Z');
    expect(await jobIds(store)).toEqual(['schedule:daily:2026-03-05T08:00:00.000Z', 'schedule:daily:2026-03-06T08:00:00.000Z']);
    await third.stop();
  });

  it('catch_up none: a start after missed ticks runs none of them, and the next one on time', async () => {
    const schedule: ScheduleConfig = { cron: '0 9 * * *', timezone: BERLIN, catch_up: 'none' };
    const first = scheduler(store, VirtualClock.at('2026-03-02T07:00:00Z'), schedule);
    await first.start();
    await first.stop();
    const clock = VirtualClock.at('2026-03-05T11:00:00Z');
    const second = scheduler(store, clock, schedule);
    await second.start();
    expect(await jobIds(store)).toEqual([]);
    await clock.advanceTo('2026-03-06T08:00:00Z');
    expect(await jobIds(store)).toEqual(['schedule:daily:2026-03-06T08:00:00.000Z']);
    await second.stop();
    // The skipped ticks stay skipped when catch_up turns to latest later.
    const third = scheduler(store, VirtualClock.at('2026-03-06T09:00:00Z'), { ...schedule, catch_up: 'latest' });
    await third.start();
    expect(await jobIds(store)).toHaveLength(1);
    await third.stop();
  });

  it('the first start on a store runs no earlier tick (nothing was missed)', async () => {
    const schedules = scheduler(store, VirtualClock.at('2026-03-05T11:00:00Z'), { cron: '0 9 * * *', timezone: BERLIN });
    await schedules.start();
    expect(await jobIds(store)).toEqual([]);
    await schedules.stop();
  });

  // Europe/Berlin: 2026-03-29 02:00 CET jumps to 03:00 CEST; 2026-10-25 03:00 CEST falls back to 02:00 CET.
  it.each([
    [
      'spring forward',
      '2026-03-27T12:00:00Z',
      '2026-03-31T12:00:00Z',
      // 02:30 does not exist on the 29th: croner runs it once, an hour later by the wall clock (03:30 CEST = 01:30Z).
      ['2026-03-28T01:30:00.000Z', '2026-03-29T01:30:00.000Z', '2026-03-30T00:30:00.000Z', '2026-03-31T00:30:00.000Z'],
      ['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z', '2026-03-31T07:00:00.000Z'],
    ],
    [
      'fall back',
      '2026-10-23T12:00:00Z',
      '2026-10-27T12:00:00Z',
      // 02:30 happens twice on the 25th (CEST, then CET): croner runs it once, at the second (02:30 CET = 01:30Z).
      ['2026-10-24T00:30:00.000Z', '2026-10-25T01:30:00.000Z', '2026-10-26T01:30:00.000Z', '2026-10-27T01:30:00.000Z'],
      ['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z', '2026-10-27T08:00:00.000Z'],
    ],
  ])('%s in Europe/Berlin neither skips nor doubles a tick at 02:30 or 09:00', async (_change, from, to, at0230, at0900) => {
    const clock = VirtualClock.at(from);
    const night = scheduler(store, clock, { cron: '30 2 * * *', timezone: BERLIN }, 'night');
    const morning = scheduler(store, clock, { cron: '0 9 * * *', timezone: BERLIN }, 'morning');
    await night.start();
    await morning.start();
    await clock.advanceTo(to);
    expect(await jobIds(store, 'night')).toEqual(at0230.map((iso) => `schedule:night:${iso}`));
    expect(await jobIds(store, 'morning')).toEqual(at0900.map((iso) => `schedule:morning:${iso}`));
    await night.stop();
    await morning.stop();
  });

  it('runs a route now with its own delivery id each time, the payload given or its schedule payload', async () => {
    const clock = VirtualClock.at('2026-03-02T07:00:00Z');
    const schedules = scheduler(store, clock, { cron: '0 9 * * *', payload: { task: 'standup' } });
    const first = await schedules.runNow('daily');
    const second = await schedules.runNow('daily', { task: 'by hand' });
    expect(first).toMatchObject({ outcome: 'accepted', answer: { status: 202 } });
    expect(second?.deliveryId).not.toBe(first?.deliveryId);
    const payloads = (await store.jobs.list({ route: 'daily' })).map((job) => job.payload);
    expect(payloads).toEqual(
      expect.arrayContaining([
        { task: 'standup', scheduled_at: '2026-03-02T07:00:00.000Z' },
        { task: 'by hand', scheduled_at: '2026-03-02T07:00:00.000Z' },
      ]),
    );
    expect(await schedules.runNow('nope')).toBeUndefined();
  });
});
