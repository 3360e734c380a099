// JobQueue.makeDue on bullmq: a job in the delayed set (a hold, a retry's backoff, a coalescing window) is promoted
// with bullmq's own `Job.promote` (to the back of the wait list); then its data's runAt is set to now, unless a
// worker has taken it meanwhile.
import type { Job as BullJob } from 'bullmq';
import type { Redis } from 'ioredis';
import { STATES } from './bull-job';
import type { JobData } from './job-data';

/**
 * KEYS[1] the job's hash, KEYS[2] its bullmq lock; ARGV: the data as read, the data to write. Writes the data
 * only while no worker holds the job (no lock: a lease takes the lock before it writes the data) and the data is
 * still what was read. Once promoted, nothing else writes a waiting job's data (the accept merges events only
 * into delayed jobs), so a refusal means a worker took the job: its runAt is then the lease's business.
 */
const SET_WAITING_DATA_LUA = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('HGET', KEYS[1], 'data') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'data', ARGV[2])
return 1
`;

type Command = (...args: Array<string | number>) => Promise<number>;

/** Rounds of looking at the job's state when it changes under us (its delay ran out, a worker took it). */
const ATTEMPTS = 3;

export class DelayedJobs {
  private readonly setWaitingData: Command;

  constructor(
    private readonly client: Redis,
    /** bullmq's `queue.toKey('')`: a job's hash is this plus its id. */
    private readonly jobKeyPrefix: string,
    private readonly fromId: (jobId: string) => Promise<BullJob<JobData> | undefined>,
  ) {
    client.defineCommand('hookwiseSetWaitingData', { numberOfKeys: 2, lua: SET_WAITING_DATA_LUA });
    this.setWaitingData = (client as unknown as Record<'hookwiseSetWaitingData', Command>).hookwiseSetWaitingData.bind(client);
  }

  /** True when the job is pending (now due, or due already); false when it is missing, running, done or dead. */
  async makeDue(jobId: string): Promise<boolean> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const job = await this.fromId(jobId);
      if (!job) return false;
      const state = await job.getState();
      if (state !== 'delayed') return (STATES.pending as string[]).includes(state);
      try {
        await job.promote();
      } catch (err) {
        // No longer delayed (its delay ran out, or a worker took it): its state says what it is now. Anything
        // else (Redis unreachable) is the caller's to see.
        if (!/is not in the delayed state/.test((err as Error).message)) throw err;
        continue;
      }
      // The data's runAt after the promotion: before it, events joining a coalescing job rewrite the data.
      await this.writeRunAt(jobId);
      return true;
    }
    throw new Error(`job ${jobId} kept leaving and re-entering bullmq's delayed set while it was being made due; try again`);
  }

  private async writeRunAt(jobId: string): Promise<void> {
    const jobKey = this.jobKeyPrefix + jobId;
    const read = await this.client.hget(jobKey, 'data');
    if (read === null) return;
    const now = Date.now();
    const data = JSON.parse(read) as JobData;
    await this.setWaitingData(jobKey, `${jobKey}:lock`, read, JSON.stringify({ ...data, runAt: now, updatedAt: now }));
  }
}
