// `deliver_only: true` routes: no agent; the rendered prompt is delivered within the request and the
// answer says how it went (200 delivered, 502 with the reason). The job is stored like any other first (the
// durable enqueue comes before any answer), and only the worker delivers it: the agent step saves the rendered
// prompt as the answer without a runner (agent-step.ts), then the usual delivery step runs, so a job is never sent
// twice, retries and dead letters work as for every job. The request waits here for that job's `completed`,
// `retry_scheduled` or `dead_lettered` lifecycle event, up to a deadline; past it (all workers busy, or another
// gateway of a shared store took the job) it is answered 202 accepted and the job goes on as usual.
import type { AcceptOutcome } from '@hookwise/core';
import type { Lifecycle, LifecycleEvents } from '../observe/lifecycle';
import type { IngestResult } from '../ingest/pipeline-contract';

/** How long a request waits for its delivery before it is answered 202 (the job still runs). */
export const DELIVER_ONLY_WAIT_MS = 10_000;
/** How long an outcome is kept for a request that has not asked for it yet (the worker was faster than the answer). */
const KEEP_MS = 60_000;

type Outcome = { status: number; body: Record<string, unknown> };

interface Waiter {
  resolve(outcome: Outcome | undefined): void;
  timer: NodeJS.Timeout;
}

export class DeliverOnlyWaits {
  /** Requests between their accept and their answer: while any is, outcomes are recorded. */
  private expecting = 0;
  private listening = false;
  private readonly waiters = new Map<string, Waiter>();
  private readonly early = new Map<string, { outcome: Outcome; at: number }>();

  constructor(
    private readonly lifecycle: Lifecycle,
    private readonly waitMs = DELIVER_ONLY_WAIT_MS,
  ) {}

  /** Called before the store step: from now on this request's outcome cannot be missed. */
  expect(): void {
    this.expecting += 1;
    if (this.listening) return;
    this.listening = true;
    this.lifecycle.on('completed', (e) => this.settle(e.jobId, completedOutcome(e)));
    // A failed delivery is answered 502 at its first failure; the job is retried or dead-lettered as usual.
    this.lifecycle.on('retry_scheduled', (e) => this.settle(e.jobId, failedOutcome(e, true)));
    this.lifecycle.on('dead_lettered', (e) => this.settle(e.jobId, failedOutcome(e, false)));
  }

  /** The request is answered (or was not accepted): call once per expect(). */
  done(): void {
    this.expecting -= 1;
  }

  /** The request's answer: for an accepted (not coalesced) job, its delivery's outcome; else the store's answer. */
  async answerFor(result: AcceptOutcome, answer: IngestResult): Promise<IngestResult> {
    try {
      if (result.outcome !== 'accepted' || result.coalesced || typeof answer.body !== 'object') return answer;
      return await this.answer(result.jobId, answer.body);
    } finally {
      this.done();
    }
  }

  /** The answer for an accepted deliver-only job: its outcome, or 202 when the deadline passed first. */
  private async answer(jobId: string, accepted: Record<string, unknown>): Promise<IngestResult> {
    const outcome = this.takeEarly(jobId) ?? (await this.waitFor(jobId));
    if (!outcome) return { status: 202, body: { ...accepted, note: `not delivered within ${this.waitMs / 1000}s; the job goes on (deliveries show)` } };
    return { status: outcome.status, body: { ...accepted, ...outcome.body } };
  }

  private takeEarly(jobId: string): Outcome | undefined {
    const found = this.early.get(jobId);
    this.early.delete(jobId);
    return found?.outcome;
  }

  private waitFor(jobId: string): Promise<Outcome | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(jobId);
        resolve(undefined);
      }, this.waitMs);
      timer.unref();
      this.waiters.set(jobId, { resolve, timer });
    });
  }

  private settle(jobId: string, outcome: Outcome): void {
    const waiter = this.waiters.get(jobId);
    if (waiter) {
      this.waiters.delete(jobId);
      clearTimeout(waiter.timer);
      waiter.resolve(outcome);
      return;
    }
    if (this.expecting <= 0) return;
    const now = Date.now();
    for (const [id, kept] of this.early) if (now - kept.at > KEEP_MS) this.early.delete(id);
    // Bounded: only outcomes of the last few seconds' jobs can still be asked for.
    if (this.early.size >= 1000) this.early.delete(this.early.keys().next().value as string);
    this.early.set(jobId, { outcome, at: now });
  }
}

function completedOutcome(e: LifecycleEvents['completed']): Outcome {
  if (e.outcome === 'delivered') return { status: 200, body: { status: 'delivered', destinations: e.destinations } };
  // The rendered prompt was empty or the silent marker: nothing to deliver, and nothing failed.
  return { status: 200, body: { status: e.outcome, note: e.note } };
}

function failedOutcome(e: LifecycleEvents['retry_scheduled'] | LifecycleEvents['dead_lettered'], retried: boolean): Outcome {
  return {
    status: 502,
    body: { status: 'failed', error: `delivery${e.destination ? ` to ${e.destination}` : ''} failed: ${e.error}`, retried },
  };
}
