// The Lua scripts around a lease: the gate a taken job passes (coalesce pointer, concurrency key), the key lock's
// renewal, and its release, which wakes the key's next job.
import type { Redis } from 'ioredis';
import { BULLMQ_LAYOUT_FUNCTIONS } from './bullmq-layout';

/**
 * Run right after bullmq handed a job to this gateway. KEYS: the job's coalesce pointer, its key lock, the key's
 * blocked set, the job's hash (keys it has none of are never-written placeholders). ARGV: job id, lock ms,
 * the job's data as it is once leased, its creation time, '1' when it has a concurrency key.
 * - The pointer is deleted if it names the job: once taken, a job takes no more events (a job released or
 *   delayed later is not "never leased").
 * - With a concurrency key: when another job holds the key's lock, the job is added to the key's blocked set and
 *   0 is returned (nothing else changes: the caller puts it back, its attempt not counted). Otherwise the lock
 *   is taken (or kept: the job itself held it, e.g. before its gateway died) for lock ms.
 * - The data is written (the attempt counted) and 1 returned; -1 when the job is gone.
 */
const LEASE_GATE_LUA = `
local pointer, lock, blocked, job_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local job_id = ARGV[1]
if redis.call('HGET', pointer, 'job') == job_id then redis.call('DEL', pointer) end
if redis.call('EXISTS', job_key) == 0 then return -1 end
if ARGV[5] == '1' then
  local holder = redis.call('GET', lock)
  if holder and holder ~= job_id then
    redis.call('ZADD', blocked, ARGV[4], job_id)
    redis.call('PEXPIRE', blocked, 86400000)
    return 0
  end
  redis.call('SET', lock, job_id, 'PX', ARGV[2])
  redis.call('ZREM', blocked, job_id)
end
redis.call('HSET', job_key, 'data', ARGV[3])
return 1
`;

/** KEYS[1] a key lock; ARGV: job id, ms. Extends the lock while the job holds it; 0 when it does not. */
const EXTEND_KEY_LOCK_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
`;

/**
 * KEYS[1] a key lock, KEYS[2] the key's blocked set; ARGV: job id, bullmq queue key prefix. When the job holds
 * the lock it is released, and the key's oldest blocked job still delayed moves to the front of the wait list:
 * it is the key's next job, and need not wait out its retry delay.
 */
const RELEASE_KEY_LOCK_LUA = `${BULLMQ_LAYOUT_FUNCTIONS}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
while true do
  local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not first then return 1 end
  redis.call('ZREM', KEYS[2], first)
  if bull_promote_front(ARGV[2], first) then return 2 end
end
`;

type Command = (...args: Array<string | number>) => Promise<number>;

export interface GateKeys {
  pointer: string;
  lock: string;
  blocked: string;
  job: string;
}

export class LeaseScripts {
  private readonly gateCommand: Command;
  private readonly extendCommand: Command;
  private readonly releaseCommand: Command;

  constructor(client: Redis) {
    client.defineCommand('hookwiseLeaseGate', { numberOfKeys: 4, lua: LEASE_GATE_LUA });
    client.defineCommand('hookwiseExtendKeyLock', { numberOfKeys: 1, lua: EXTEND_KEY_LOCK_LUA });
    client.defineCommand('hookwiseReleaseKeyLock', { numberOfKeys: 2, lua: RELEASE_KEY_LOCK_LUA });
    const commands = client as unknown as Record<'hookwiseLeaseGate' | 'hookwiseExtendKeyLock' | 'hookwiseReleaseKeyLock', Command>;
    this.gateCommand = commands.hookwiseLeaseGate.bind(client);
    this.extendCommand = commands.hookwiseExtendKeyLock.bind(client);
    this.releaseCommand = commands.hookwiseReleaseKeyLock.bind(client);
  }

  /** 1: leased (data written); 0: its key is held by another running job; -1: the job is gone. */
  async gate(keys: GateKeys, jobId: string, lockMs: number, data: string, createdAt: number, keyed: boolean): Promise<number> {
    return Number(await this.gateCommand(keys.pointer, keys.lock, keys.blocked, keys.job, jobId, lockMs, data, createdAt, keyed ? '1' : '0'));
  }

  async extend(lock: string, jobId: string, ms: number): Promise<boolean> {
    return Number(await this.extendCommand(lock, jobId, ms)) === 1;
  }

  async release(lock: string, blocked: string, jobId: string, queueKeyPrefix: string): Promise<void> {
    await this.releaseCommand(lock, blocked, jobId, queueKeyPrefix);
  }
}
