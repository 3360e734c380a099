// The ticks of one `schedule:` block: its cron expression read in its time zone by croner, which keeps wall-clock
// times across daylight-saving changes (a time the spring-forward skips runs once, an hour later; a time the
// fall-back repeats runs once, at its second occurrence). Also the route checks of the block.
import { Cron } from 'croner';
import type { ScheduleConfig } from '../config/schedule-schema';

/** How far back the latest missed tick is looked for, in widening steps (a per-second cron needs the first only). */
const LOOK_BACK_MS = [60_000, 3_600_000, 86_400_000, 32 * 86_400_000, 367 * 86_400_000, 5 * 367 * 86_400_000];
const MAX_STEPS = 5000;

export class ScheduleTicks {
  private readonly cron: Cron;

  /** Throws croner's error for a bad expression; a bad time zone throws on the first `nextAfter`. */
  constructor(schedule: Pick<ScheduleConfig, 'cron' | 'timezone'>) {
    this.cron = new Cron(schedule.cron, { timezone: schedule.timezone ?? 'UTC', paused: true });
  }

  /** The first tick strictly after `ms` (epoch ms); undefined when the expression never fires again. */
  nextAfter(ms: number): number | undefined {
    return this.cron.nextRun(new Date(ms))?.getTime();
  }

  /** The latest tick in (after, upTo]; undefined when there is none. */
  latestIn(after: number, upTo: number): number | undefined {
    for (const span of LOOK_BACK_MS) {
      const from = Math.max(after, upTo - span);
      let latest: number | undefined;
      for (let t = this.nextAfter(from), steps = 0; t !== undefined && t <= upTo && steps < MAX_STEPS; t = this.nextAfter(t), steps++) latest = t;
      if (latest !== undefined) return latest;
      if (from === after) return undefined;
    }
    return undefined;
  }
}

/** Problems of a route's `schedule:`: an expression or time zone croner refuses, one that never fires. */
export function scheduleProblems(route: { name: string; origin?: string; schedule?: ScheduleConfig }): string[] {
  const { schedule } = route;
  if (!schedule) return [];
  const where = `route '${route.name}' schedule`;
  if (route.origin !== undefined && route.origin !== 'static') {
    return [`${where}: only routes in config.yaml run on a schedule; move the route to config.yaml or leave schedule out of the subscription`];
  }
  let ticks: ScheduleTicks;
  try {
    ticks = new ScheduleTicks({ cron: schedule.cron });
  } catch (err) {
    return [
      `${where}.cron '${schedule.cron}' is no cron expression (${(err as Error).message}): use five fields, minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5"`,
    ];
  }
  try {
    ticks = new ScheduleTicks(schedule);
    if (ticks.nextAfter(Date.now()) === undefined) return [`${where}.cron '${schedule.cron}' never fires (no such date): check the day and month fields`];
  } catch {
    return [`${where}.timezone '${schedule.timezone}' is no IANA time zone: use a name like Europe/Berlin or America/New_York (default UTC)`];
  }
  return [];
}
