// Runs the static routes' schedules: a timer per route for its next tick, each tick accepted as one event of the
// route (tick-claim.ts: claimed once per store, so every gateway may try it), the mark of handled ticks kept in the
// store (handled-ticks.ts), and at start the ticks missed while no gateway ran: the latest once, or none. The
// clock is injected (`now()` and a timer), so tests move time instead of waiting for it.
import { randomBytes } from 'node:crypto';
import { errorMessage, type MemoKV } from '@hookwise/core';
import type { Route } from '../routes/routes';
import { HandledTicks } from './handled-ticks';
import { ScheduleTicks } from './schedule-ticks';
import { acceptTick, tickDeliveryId, type TickDeps, type TickResult } from './tick-claim';

export interface ScheduleClock {
  now(): number;
  /** Calls `fire` in `ms`; returns what cancels it. */
  setTimer(fire: () => void, ms: number): () => void;
}

/** The process's clock; its timers never keep the process alive. */
export const systemClock: ScheduleClock = {
  now: () => Date.now(),
  setTimer(fire, ms) {
    const timer = setTimeout(fire, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** The longest a timer is set for: a far tick (or a clock that was set) is looked at again after this. */
const MAX_WAIT_MS = 3_600_000;

export interface SchedulerDeps extends TickDeps {
  /** The routes whose `schedule:` runs: the static ones (a subscription's schedule is refused by its checks). */
  scheduledRoutes(): Route[];
  /** Any route by name, for `hookwise routes run` (subscriptions too). */
  route(name: string): Route | undefined;
  memos: MemoKV;
  clock?: ScheduleClock;
}

interface Scheduled {
  route: Route;
  schedule: NonNullable<Route['schedule']>;
  ticks: ScheduleTicks;
  /** Ticks up to here are handled by this process (or were before it started). */
  through: number;
  cancel?: () => void;
}

export class Scheduler {
  private readonly clock: ScheduleClock;
  private readonly handled: HandledTicks;
  private readonly scheduled = new Map<string, Scheduled>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly deps: SchedulerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.handled = new HandledTicks(deps.memos);
  }

  /** The routes that run on a schedule, by name. */
  routes(): string[] {
    return [...this.scheduled.keys()];
  }

  /** Runs the missed tick of each scheduled route as `catch_up` says, then waits for the next ticks. */
  async start(): Promise<void> {
    const now = this.clock.now();
    for (const route of this.deps.scheduledRoutes()) {
      if (route.schedule) this.scheduled.set(route.name, { route, schedule: route.schedule, ticks: new ScheduleTicks(route.schedule), through: now });
    }
    await Promise.all([...this.scheduled.values()].map((entry) => this.catchUp(entry, now)));
    for (const entry of this.scheduled.values()) {
      const next = entry.ticks.nextAfter(entry.through);
      const at = next === undefined ? 'never' : new Date(next).toISOString();
      this.deps.logger.info(
        `route '${entry.route.name}' runs on its schedule "${entry.schedule.cron}" (${entry.schedule.timezone ?? 'UTC'}); next tick ${at}`,
        { route: entry.route.name },
      );
      this.arm(entry);
    }
  }

  /** Stops the timers and waits for the ticks being stored. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const entry of this.scheduled.values()) entry.cancel?.();
    await Promise.allSettled([...this.running]);
  }

  /**
   * `hookwise routes run`: one event of `name` now, with `payload` (else its schedule's), as a tick would be but
   * under a delivery id of its own: running a route by hand twice runs it twice. Undefined for an unknown route.
   */
  async runNow(name: string, payload?: Record<string, unknown>): Promise<TickResult | undefined> {
    const route = this.deps.route(name);
    if (!route) return undefined;
    if (this.stopped) throw new Error('the gateway is shutting down');
    const at = new Date(this.clock.now()).toISOString();
    const deliveryId = `run:${name}:${at}:${randomBytes(4).toString('hex')}`;
    const result = await acceptTick(this.deps, route, { ...(payload ?? route.schedule?.payload ?? {}), scheduled_at: at }, deliveryId);
    this.deps.logger.info(`route '${name}' run now (delivery ${deliveryId}): ${result.outcome}`, { route: name, delivery_id: deliveryId });
    return result;
  }

  private async catchUp(entry: Scheduled, now: number): Promise<void> {
    const { name } = entry.route;
    let mark: number | undefined;
    try {
      mark = await this.handled.get(name);
      // The first start of this schedule on this store: nothing was missed before it.
      if (mark === undefined) await this.handled.advance(name, now);
    } catch (err) {
      this.deps.logger.warn(`route '${name}': could not read its handled ticks from the store (${errorMessage(err)}); missed ticks are not run`, {
        route: name,
      });
      return;
    }
    const missed = mark === undefined ? undefined : entry.ticks.latestIn(mark, now);
    if (missed === undefined) return;
    const iso = new Date(missed).toISOString();
    if (entry.schedule.catch_up === 'none') {
      this.deps.logger.info(`route '${name}': ticks up to ${iso} were missed while no gateway ran; catch_up: none runs none of them`, { route: name });
      await this.handled.advance(name, missed).catch(() => undefined);
      return;
    }
    this.deps.logger.info(`route '${name}': running the latest tick missed while no gateway ran (${iso}; catch_up: latest)`, { route: name });
    await this.fire(entry, missed);
  }

  private arm(entry: Scheduled): void {
    if (this.stopped) return;
    const next = entry.ticks.nextAfter(entry.through);
    if (next === undefined) return;
    entry.cancel = this.clock.setTimer(() => this.wake(entry), Math.min(Math.max(0, next - this.clock.now()), MAX_WAIT_MS));
  }

  /** A timer fired: the tick due now (the latest, if the process slept through several) runs, then the next is armed. */
  private wake(entry: Scheduled): void {
    entry.cancel = undefined;
    if (this.stopped) return;
    const due = entry.ticks.latestIn(entry.through, this.clock.now());
    const fired = due === undefined ? Promise.resolve() : this.fire(entry, due);
    const tracked = fired.then(() => this.arm(entry));
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
  }

  /** One tick through the route's filter and the store's claim; the mark moves on once the store decided it. */
  private async fire(entry: Scheduled, tick: number): Promise<void> {
    entry.through = Math.max(entry.through, tick);
    const { route, schedule } = entry;
    const iso = new Date(tick).toISOString();
    try {
      const result = await acceptTick(this.deps, route, { ...(schedule.payload ?? {}), scheduled_at: iso }, tickDeliveryId(route.name, iso));
      if (result.outcome === 'accepted') {
        this.deps.logger.info(`route '${route.name}': tick ${iso} accepted`, { route: route.name, delivery_id: result.deliveryId });
      } else if (result.outcome === 'rate_limited') {
        this.deps.logger.warn(`route '${route.name}': tick ${iso} not run: the route's rate limit is used up`, { route: route.name });
      }
      // Refused for backpressure or the rate limit: not handled, so a start's catch-up may still run it.
      if (result.outcome !== 'rate_limited' && result.outcome !== 'backpressure') await this.handled.advance(route.name, tick);
    } catch (err) {
      this.deps.storeStatus?.failed('accept', errorMessage(err));
      this.deps.logger.error(`route '${route.name}': tick ${iso} could not be stored: ${errorMessage(err)}`, { route: route.name });
    }
  }
}
