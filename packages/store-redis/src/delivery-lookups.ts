// Delivery id -> job id, for `hookwise deliveries show <delivery id>`: kept as long as the job it names.
import type { Redis } from 'ioredis';

/** How long the lookup of a job that has not finished is kept (refreshed when a dead letter is retried). */
export const LIVE_LOOKUP_MS = 30 * 24 * 3600 * 1000;

/**
 * KEYS[1] the lookup; ARGV[1] the job id it must name; ARGV[2] a TTL in ms, or -1 to keep it for good. A lookup
 * that names another job (the id was delivered again later) is left alone.
 */
const LOOKUP_TTL_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '-1' then return redis.call('PERSIST', KEYS[1]) end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
`;

type LookupTtlCommand = (key: string, jobId: string, ttlMs: number) => Promise<number>;

/**
 * The lookups of one prefix. A lookup lives as long as its job: `LIVE_LOOKUP_MS` while the job waits or runs,
 * the done retention once it is done, and for good once it is a dead letter (which bullmq keeps for good).
 */
export class DeliveryLookups {
  private readonly ttlCommand: LookupTtlCommand;

  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
  ) {
    client.defineCommand('hookwiseLookupTtl', { numberOfKeys: 1, lua: LOOKUP_TTL_LUA });
    this.ttlCommand = (client as unknown as { hookwiseLookupTtl: LookupTtlCommand }).hookwiseLookupTtl.bind(client);
  }

  key(deliveryId: string): string {
    return `${this.prefix}:job-by-delivery:${deliveryId}`;
  }

  async set(deliveryId: string, jobId: string): Promise<void> {
    await this.client.set(this.key(deliveryId), jobId, 'PX', LIVE_LOOKUP_MS);
  }

  async jobIdOf(deliveryId: string): Promise<string | undefined> {
    return (await this.client.get(this.key(deliveryId))) ?? undefined;
  }

  /** The job became a dead letter: its lookup no longer expires. */
  async keepForever(deliveryId: string, jobId: string): Promise<void> {
    await this.ttlCommand(this.key(deliveryId), jobId, -1);
  }

  /** The job is live again (a retried dead letter) or done: its lookup expires after `ttlMs`. */
  async expireIn(deliveryId: string, jobId: string, ttlMs: number): Promise<void> {
    await this.ttlCommand(this.key(deliveryId), jobId, ttlMs);
  }
}
