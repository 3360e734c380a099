// What happens to a job a budget refused: it waits for the window's end or ends as skipped, and the refusal is
// logged (a warning once per route, budget and window, then info lines) and told to lifecycle listeners.
import type { Job } from '@hookwise/core';
import type { Route } from '../routes/routes';
import type { SpentBudget } from './budget';
import { emitCompleted, jobEvent } from './job-events';
import type { WorkerDeps } from './worker-deps';

export class BudgetRefusals {
  /** Per route and budget: the end of the window whose refusal was logged as a warning (the rest are info). */
  private readonly warned = new Map<string, number>();

  constructor(private readonly deps: Pick<WorkerDeps, 'jobs' | 'logger' | 'lifecycle'>) {}

  /**
   * A budget refused the run: the job waits for the window's end (released with a note, its attempt not counted)
   * or ends as skipped. The first refusal per route, budget and window is a warning, the rest are info lines.
   */
  async refused(route: Route, job: Job, spent: SpentBudget): Promise<void> {
    const { jobs, logger, lifecycle } = this.deps;
    if (spent.action === 'wait') await jobs.release(job.id, { runAt: spent.until, note: spent.note });
    else await jobs.complete(job.id, {}, { outcome: 'skipped', note: spent.note });
    const key = `${spent.scope}\u0000${route.name}\u0000${spent.budget}`;
    const first = this.warned.get(key) !== spent.until;
    if (first) {
      const now = Date.now();
      for (const [other, until] of this.warned) if (until <= now) this.warned.delete(other);
      this.warned.set(key, spent.until);
    }
    const more = first ? ' (further refusals in this window are logged at info)' : '';
    logger[first ? 'warn' : 'info'](`${job.deliveryId} on route '${route.name}': ${spent.note}${more}`, { route: route.name, delivery_id: job.deliveryId });
    if (lifecycle?.has('budget_exceeded')) {
      const { scope, budget, limit, action, until, note } = spent;
      lifecycle.emit('budget_exceeded', { ...jobEvent(route, job), scope, budget, limit, action, until, note });
    }
    if (spent.action === 'skip') emitCompleted(lifecycle, route, job, job.attempts, 'skipped', [], spent.note);
  }
}
