// JobQueue.makeDue on bullmq: a job in the delayed set (a hold, a retry's backoff, a coalescing window) is promoted
// with bullmq's own `Job.promote` (to the back of the wait list), after its data's runAt is set to now.
import type { Job as BullJob, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { STATES } from './bull-job';
import type { JobData } from './job-data';

/**
 * KEYS[1] the queue's delayed set, KEYS[2] the job's hash; ARGV: job id, the data as read, the data to write.
 * Writes the data only while the job is delayed (no gateway holds it) and its data is still what was read (a
 * coalescing job takes events while it waits: the accept script rewrites its data). 1: written; 0: not delayed
 * any more; -1: the data changed meanwhile.
 */
const SET_DELAYED_DATA_LUA = `
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
if redis.call('HGET', KEYS[2], 'data') ~= ARGV[2] then return -1 end
redis.call('HSET', KEYS[2], 'data', ARGV[3])
return 1
`;

type Command = (...args: Array<string | number>) => Promise<number>;

/** Rounds of read-and-write when the data changes under us (events joining a coalescing job). */
const ATTEMPTS = 5;

export class DelayedJobs {
  private readonly setDelayedData: Command;

  constructor(
    private readonly client: Redis,
    private readonly queue: Queue<JobData>,
    /** bullmq's `queue.toKey('')`: a job's hash is this plus its id. */
    private readonly jobKeyPrefix: string,
    private readonly fromId: (jobId: string) => Promise<BullJob<JobData> | undefined>,
  ) {
    client.defineCommand('hookwiseSetDelayedData', { numberOfKeys: 2, lua: SET_DELAYED_DATA_LUA });
    this.setDelayedData = (client as unknown as Record<'hookwiseSetDelayedData', Command>).hookwiseSetDelayedData.bind(client);
  }

  /** True when the job is pending (now due, or due already); false when it is missing, running, done or dead. */
  async makeDue(jobId: string): Promise<boolean> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const job = await this.fromId(jobId);
      if (!job) return false;
      const state = await job.getState();
      if (state !== 'delayed') return (STATES.pending as string[]).includes(state);
      // The data's runAt first, while the job is delayed: once promoted a worker may lease it at once and write
      // its own data, which a later write of ours would overwrite.
      const jobKey = this.jobKeyPrefix + jobId;
      const read = await this.client.hget(jobKey, 'data');
      if (read === null) return false;
      const now = Date.now();
      const data = JSON.parse(read) as JobData;
      const written = Number(
        await this.setDelayedData(this.queue.toKey('delayed'), jobKey, jobId, read, JSON.stringify({ ...data, runAt: now, updatedAt: now })),
      );
      if (written === -1) continue;
      if (written === 0) continue; // no longer delayed: its state says what it is now
      try {
        await job.promote();
      } catch {
        // Its delay ran out between the write and the promotion: bullmq moved it to the wait list itself.
      }
      return true;
    }
    throw new Error(`job ${jobId} kept changing while it was being made due in Redis; try again`);
  }
}
