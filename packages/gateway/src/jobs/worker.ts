// Worker pool: leases jobs and runs each through its steps (the agent, then the delivery), recording a failed
// step for a retry or as a dead letter. The steps, the lease loop and the retry decisions are modules of their own.
import { randomBytes } from 'node:crypto';
import type { Job, JobStep } from '@hookwise/core';
import { AgentStep } from './agent-step';
import { DeliveryStep } from './delivery-step';
import { currentRouteOf } from '../routes/job-route';
import { JobParts } from './job-hooks';
import { LeaseLoop, keepLeased } from './lease-loop';
import { recordFailure } from './retries';
import type { WorkerDeps } from './worker-deps';

export class WorkerPool {
  readonly owner = `worker-${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly leaseMs: number;
  private readonly loop: LeaseLoop;
  private readonly agentStep: AgentStep;
  private readonly deliveryStep: DeliveryStep;

  constructor(private readonly deps: WorkerDeps) {
    this.leaseMs = deps.leaseMs ?? 30_000;
    this.loop = new LeaseLoop({
      jobs: deps.jobs,
      owner: this.owner,
      leaseMs: this.leaseMs,
      pollMs: deps.pollMs ?? 1000,
      concurrency: deps.concurrency,
      logger: deps.logger,
      storeStatus: deps.storeStatus,
      run: (job, controller) => this.process(job, controller),
    });
    this.agentStep = new AgentStep(deps);
    this.deliveryStep = new DeliveryStep({ ...deps, isRunning: () => this.loop.isRunning });
  }

  get inFlight(): number {
    return this.loop.inFlight;
  }

  start(): void {
    if (this.loop.isRunning) return;
    if (!this.deps.counters) {
      const budgeted = this.deps.budget !== undefined || this.deps.routes.staticRoutes().some((route) => route.budget !== undefined);
      this.deps.logger[budgeted ? 'warn' : 'debug'](
        'budgets: the store keeps no counters, so agent runs and tokens are counted by this process alone (each gateway counts its own, and a restart starts afresh)',
      );
    }
    this.loop.start();
  }

  /** Takes jobs while there is room (also called when jobs became due outside the queue's own wake-ups). */
  pump(): void {
    this.loop.pump();
  }

  /** Stops taking jobs, lets running ones finish until the deadline, then aborts and hands back the rest. */
  stop(deadlineMs: number): Promise<{ unfinished: string[] }> {
    return this.loop.stop(deadlineMs);
  }

  /** One leased job: its agent step unless its answer is saved, then its delivery step; a failure is recorded. */
  private async process(job: Job, controller: AbortController): Promise<void> {
    const stopRenewing = keepLeased(this.deps.jobs, job.id, this.owner, this.leaseMs);
    let step: JobStep = job.step;
    let attempt = job.attempts;
    // For the lifecycle events of a failure: when the failing step began, and where a delivery was going.
    let stepStartedAt = performance.now();
    let destination: string | undefined;
    try {
      const route = currentRouteOf(this.deps.routes, job, this.deps.logger);
      // What each feature carries through this job's steps (job-hooks.ts).
      const parts = JobParts.of(this.deps.hooks ?? [], route, job);
      let answer = job.answer;
      if (step === 'agent' || answer === undefined) {
        answer = await this.agentStep.run(route, job, controller.signal, parts);
        // A budget refused the run (the job waits or was skipped), the reply lost its turn (skipped), or shutdown came.
        if (answer === undefined) return;
        step = 'deliver';
        attempt = 1;
      }
      if (await this.deliveryStep.endWithoutDelivery(route, job, answer, attempt)) return;
      stepStartedAt = performance.now();
      const outcome = await this.deliveryStep.deliver(route, job, answer, attempt, controller.signal, parts);
      if (outcome === undefined) return; // cancelled by shutdown: the job is handed back by stop()
      if (outcome.failure) {
        const { err, attempt: failedAttempt, destination: failedAt } = outcome.failure;
        step = 'deliver';
        destination = failedAt;
        await recordFailure(this.deps, job, step, failedAttempt, err, { destination, durationMs: performance.now() - stepStartedAt });
      }
    } catch (err) {
      if (controller.signal.aborted && !this.loop.isRunning) return; // handed back by stop()
      await recordFailure(this.deps, job, step, attempt, err, {
        destination: step === 'deliver' ? destination : undefined,
        durationMs: performance.now() - stepStartedAt,
      });
    } finally {
      stopRenewing();
    }
  }
}
