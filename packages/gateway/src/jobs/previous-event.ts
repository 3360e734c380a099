// "What changed since the last run": a route's templates may name `{__previous__.<path>}`, the values of
// the last event answered for the same key (the route's concurrency key, else its coalesce key), e.g.
// `{__previous__.pull_request.head.sha}` to review only the commits pushed since. The store's memos keep, per route
// and key, which job was answered last (and the one before it, so that a retried job still sees its own
// predecessor); the payload is read from that job, so a memo stays a few bytes whatever the payloads weigh.
import { createHash } from 'node:crypto';
import type { Job, JobQueue, MemoKV } from '@hookwise/core';
import type { Logger } from 'winston';

/** A key not answered for this long is forgotten; every answer renews it. */
export const PREVIOUS_TTL_MS = 90 * 24 * 60 * 60 * 1000;

type KeyedJob = Pick<Job, 'id' | 'concurrencyKey' | 'coalesceKey'>;

/** The memo: the last answered job of the key, and the one answered before it. */
interface LastAnswered {
  job: string;
  before?: string;
}

/** The key that makes events "the same" for `{__previous__}`: the rendered concurrency key, else the coalesce key. */
export function previousKeyOf(job: Pick<Job, 'concurrencyKey' | 'coalesceKey'>): string | undefined {
  return job.concurrencyKey ?? job.coalesceKey;
}

export class PreviousEvents {
  constructor(
    private readonly memos: MemoKV,
    private readonly jobs: Pick<JobQueue, 'get'>,
    private readonly logger: Logger,
  ) {}

  /**
   * The payload of the last event answered before this job for its route and key; undefined without a key, for
   * the key's first event, or when that job is no longer in the store. A store that fails here costs the run only
   * its `{__previous__}` values (logged), never the run.
   */
  async payloadBefore(route: string, job: KeyedJob): Promise<unknown> {
    const key = previousKeyOf(job);
    if (key === undefined) return undefined;
    try {
      const last = await this.read(route, key);
      const id = last?.job === job.id ? last.before : last?.job;
      return id === undefined ? undefined : (await this.jobs.get(id))?.payload;
    } catch (err) {
      this.logger.warn(`route '${route}': could not read the previous event for {__previous__}: ${(err as Error).message}`, { route });
      return undefined;
    }
  }

  /** Records this job as the key's last answered event (a retry of the same job changes nothing). */
  async remember(route: string, job: KeyedJob): Promise<void> {
    const key = previousKeyOf(job);
    if (key === undefined) return;
    try {
      const last = await this.read(route, key);
      if (last?.job === job.id) return;
      const next: LastAnswered = { job: job.id, ...(last ? { before: last.job } : {}) };
      await this.memos.set(memoKey(route, key), JSON.stringify(next), PREVIOUS_TTL_MS);
    } catch (err) {
      this.logger.warn(`route '${route}': could not record this event for the next run's {__previous__}: ${(err as Error).message}`, { route });
    }
  }

  private async read(route: string, key: string): Promise<LastAnswered | undefined> {
    const text = await this.memos.get(memoKey(route, key));
    if (text === undefined) return undefined;
    const value = JSON.parse(text) as Partial<LastAnswered>;
    return typeof value.job === 'string' ? { job: value.job, before: typeof value.before === 'string' ? value.before : undefined } : undefined;
  }
}

/** Memo keys are shared with plugins: the gateway's start with `hookwise.`; hashed, as rendered keys can be long. */
function memoKey(route: string, key: string): string {
  return `hookwise.previous:${createHash('sha256').update(`${route}\n${key}`).digest('hex')}`;
}
