// Scheduled runs through real gateways with a virtual clock: a tick is a job of its route that the worker runs and
// delivers; two gateways on one real redis-server run each tick once; a restart on the same store after missed
// ticks runs the latest of them once (catch_up: latest) or none (catch_up: none); a bad cron or time zone stops
// startup.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisServer, type RunningRedis, type TestGateway } from '@hookwise/testing';
import { VirtualClock } from '../schedule-clock';
import { isDone, recorded, startWorkerGateway, until } from './worker-gateway';

jest.setTimeout(60_000);

/** Weekdays at 09:00 in Berlin; the scripted agent answers the payload's `answer`. */
const STANDUP = { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', payload: { answer: 'standup notes' } };
const tick = (iso: string) => `schedule:standup:${iso}`;

let redis: RunningRedis;
const running: TestGateway[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(() => redis.stop());
afterEach(async () => {
  await Promise.all(running.splice(0).map((gw) => gw.stop()));
});

async function gateway(store: Parameters<typeof startWorkerGateway>[0], clock: VirtualClock, schedule: Record<string, unknown> = STANDUP, configDir?: string) {
  const gw = await startWorkerGateway(store, { standup: { schedule } }, {}, { scheduleClock: clock, ...(configDir ? { configDir } : {}) });
  running.push(gw);
  return gw;
}

async function stop(gw: TestGateway): Promise<void> {
  running.splice(running.indexOf(gw), 1);
  await gw.stop();
}

async function deliveryIds(gw: TestGateway): Promise<string[]> {
  return (await gw.gateway.store.jobs.list({ route: 'standup' })).map((job) => job.deliveryId).sort();
}

describe('scheduled runs through real gateways', () => {
  it('runs a tick as one job of its route: the worker runs the agent and delivers, the job shows event schedule', async () => {
    const clock = VirtualClock.at('2026-03-02T07:00:00Z');
    const gw = await gateway('memory', clock);
    expect(gw.logText()).toContain(`route 'standup' runs on its schedule "0 9 * * 1-5" (Europe/Berlin); next tick 2026-03-02T08:00:00.000Z`);
    await clock.advanceTo('2026-03-02T08:30:00Z');
    const job = await until(gw, tick('2026-03-02T08:00:00.000Z'), isDone);
    expect(job).toMatchObject({ route: 'standup', event: 'schedule', status: 'done', answer: 'standup notes' });
    expect(job.payload).toEqual({ answer: 'standup notes', scheduled_at: '2026-03-02T08:00:00.000Z' });
    expect(recorded(gw)).toEqual([expect.objectContaining({ text: 'standup notes', deliveryId: tick('2026-03-02T08:00:00.000Z') })]);
    expect(await deliveryIds(gw)).toHaveLength(1);
  });

  it('runs each tick once with two gateways on one Redis', async () => {
    const store = { backend: 'redis', url: redis.url, prefix: 'schedules-two' };
    const clocks = [VirtualClock.at('2026-03-02T07:00:00Z'), VirtualClock.at('2026-03-02T07:00:00Z')];
    const [one, two] = [await gateway(store, clocks[0]), await gateway(store, clocks[1])];
    await Promise.all(clocks.map((clock) => clock.advanceTo('2026-03-04T08:30:00Z')));
    const ids = ['2026-03-02', '2026-03-03', '2026-03-04'].map((day) => tick(`${day}T08:00:00.000Z`));
    for (const id of ids) await until(one, id, isDone);
    expect(await deliveryIds(one)).toEqual(ids);
    const delivered = [...recorded(one), ...recorded(two)].map((d) => d.deliveryId).sort();
    expect(delivered).toEqual(ids);
    // Each tick was tried by both; the store's claim of its delivery id let one of them through.
    const duplicates = `${one.logText()}\n${two.logText()}`.match(/duplicate delivery schedule:standup:\S+ on route 'standup' skipped/g) ?? [];
    expect(duplicates).toHaveLength(3);
  });

  it('catch_up latest: a restart on Redis after missed ticks runs the latest once, and a second restart nothing', async () => {
    const store = { backend: 'redis', url: redis.url, prefix: 'schedules-latest' };
    await stop(await gateway(store, VirtualClock.at('2026-03-02T07:00:00Z')));
    // Stopped from Monday 08:00 CET to Thursday noon: Mon, Tue, Wed and Thu 09:00 were missed.
    const restarted = await gateway(store, VirtualClock.at('2026-03-05T11:00:00Z'));
    expect(restarted.logText()).toContain("route 'standup': running the latest tick missed while no gateway ran (2026-03-05T08:00:00.000Z; catch_up: latest)");
    await until(restarted, tick('2026-03-05T08:00:00.000Z'), isDone);
    expect(await deliveryIds(restarted)).toEqual([tick('2026-03-05T08:00:00.000Z')]);
    await stop(restarted);
    const again = await gateway(store, VirtualClock.at('2026-03-05T11:05:00Z'));
    expect(await deliveryIds(again)).toEqual([tick('2026-03-05T08:00:00.000Z')]);
    expect(recorded(again)).toEqual([]);
  });

  it('catch_up none: a restart on SQLite after missed ticks runs none of them, then the next tick on time', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'hookwise-schedules-'));
    try {
      const schedule = { ...STANDUP, catch_up: 'none' };
      await stop(await gateway('sqlite', VirtualClock.at('2026-03-02T07:00:00Z'), schedule, configDir));
      const clock = VirtualClock.at('2026-03-05T11:00:00Z');
      const restarted = await gateway('sqlite', clock, schedule, configDir);
      expect(restarted.logText()).toContain(
        "route 'standup': ticks up to 2026-03-05T08:00:00.000Z were missed while no gateway ran; catch_up: none runs none of them",
      );
      expect(await deliveryIds(restarted)).toEqual([]);
      await clock.advanceTo('2026-03-06T08:30:00Z');
      await until(restarted, tick('2026-03-06T08:00:00.000Z'), isDone);
      expect(await deliveryIds(restarted)).toEqual([tick('2026-03-06T08:00:00.000Z')]);
      await stop(restarted);
    } finally {
      rmSync(configDir, { recursive: true, force: true });
    }
  });

  it('refuses to start with a bad cron expression or time zone, naming the route and what to write', async () => {
    const start = startWorkerGateway('memory', {
      early: { schedule: { cron: '0 25 * * *' } },
      zoned: { schedule: { cron: '0 9 * * *', timezone: 'Europe/Berlim' } },
    });
    const err = (await start.then(
      (gw) => gw.stop().then(() => undefined),
      (e: unknown) => e,
    )) as { message: string; problems?: string[] } | undefined;
    expect(err).toBeDefined();
    const text = [err!.message, ...(err!.problems ?? [])].join('\n');
    expect(text).toMatch(
      /route 'early' schedule\.cron '0 25 \* \* \*' is no cron expression \(.*\): use five fields, minute hour day-of-month month day-of-week/,
    );
    expect(text).toContain(
      "route 'zoned' schedule.timezone 'Europe/Berlim' is no IANA time zone: use a name like Europe/Berlin or America/New_York (default UTC)",
    );
  });
});
