// The Lua scripts behind the Redis store's accept: claim (with rate hit and backpressure) and settle, each atomic.
import type { Redis } from 'ioredis';
import { RATE_WINDOW_FUNCTIONS } from './rate-limiter';

/**
 * A delivery-id key holds one of:
 * - `pending:<since ms, Redis clock>:<job id>`: claimed by a request whose job is not stored yet;
 * - `job:<job id>`: the job is stored; `ignored`: the route's filter ignored the event; `1`: a plain
 *   `DeliveryIdCache.claim`. These three are final: the id is a duplicate until the key expires (1 hour).
 * A pending claim is also counted in the reservations sorted set (member job id, score since), so that
 * backpressure counts requests between their claim and their stored job, across all gateways.
 */
const SHARED_FUNCTIONS = `${RATE_WINDOW_FUNCTIONS}
local function pending_job_id(value)
  if not value then return nil, nil end
  local since, job_id = string.match(value, '^pending:(%d+):(.+)$')
  return job_id, tonumber(since)
end
local function confirm(claim_key, reservations, job_id, ttl)
  redis.call('SET', claim_key, 'job:' .. job_id, 'PX', ttl)
  redis.call('ZREM', reservations, job_id)
end
local function queued(job_prefix)
  local n = 0
  for _, list in ipairs({ 'wait', 'paused', 'active' }) do n = n + redis.call('LLEN', job_prefix .. list) end
  for _, set in ipairs({ 'delayed', 'prioritized' }) do n = n + redis.call('ZCARD', job_prefix .. set) end
  return n
end
`;

/**
 * KEYS: claim, reservations, lookup, rate key base.
 * ARGV: rate limit, rate window ms, job id ('' for an ignored event), max pending, pending claim ms, dedupe ttl
 * ms, lookup ttl ms, bullmq job key prefix.
 * Answers, in the order of the pipeline's checks: {'rate_limited', ms left} (the window is full; nothing is
 * counted), {'duplicate'}, {'busy'} (another request's claim is pending and fresh: ask again), {'ignored'},
 * {'backpressure'}, {'claimed'}. Only 'claimed' counts a hit: replays and ignored events use none of the window.
 */
const CLAIM_LUA = `${SHARED_FUNCTIONS}
local claim_key, reservations, lookup, rate_base = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local limit, window_ms = tonumber(ARGV[1]), tonumber(ARGV[2])
local job_id, max_pending, pending_ms = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local ttl, job_prefix = tonumber(ARGV[6]), ARGV[8]
local now = now_ms()
local allowed, left = rate_window(rate_base, limit, window_ms, false, now)
if not allowed then return { 'rate_limited', left } end
local current = redis.call('GET', claim_key)
if current then
  local owner, since = pending_job_id(current)
  if not owner then return { 'duplicate' } end
  -- Its job is stored (its claimer has not confirmed yet, or died before it could): a duplicate.
  if redis.call('EXISTS', job_prefix .. owner) == 1 then
    confirm(claim_key, reservations, owner, ttl)
    return { 'duplicate' }
  end
  if now - since < pending_ms then return { 'busy' } end
  -- Pending for longer than any enqueue takes and still no job: its claimer died. The claim is ours to take.
  redis.call('ZREM', reservations, owner)
end
if job_id == '' then
  redis.call('SET', claim_key, 'ignored', 'PX', ttl)
  return { 'ignored' }
end
redis.call('ZREMRANGEBYSCORE', reservations, '-inf', now - pending_ms)
if queued(job_prefix) + redis.call('ZCARD', reservations) >= max_pending then return { 'backpressure' } end
-- Accepted work: the one answer that counts against the window (the peek above saw room; nothing ran since).
rate_window(rate_base, limit, window_ms, true, now)
redis.call('SET', claim_key, 'pending:' .. now .. ':' .. job_id, 'PX', ttl)
redis.call('ZADD', reservations, now, job_id)
redis.call('SET', lookup, job_id, 'PX', tonumber(ARGV[7]))
return { 'claimed' }
`;

/**
 * After the enqueue, whether it succeeded or failed. KEYS: claim, reservations, lookup. ARGV: job id, dedupe ttl
 * ms, bullmq job key prefix. When the job is stored the claim becomes final for the full ttl (unless another
 * request took the claim over meanwhile) and 1 is returned; when it is not, the claim and the lookup are given
 * back (if still this job's) and 0 is returned.
 */
const SETTLE_LUA = `${SHARED_FUNCTIONS}
local claim_key, reservations, lookup, job_id = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local current = redis.call('GET', claim_key)
local ours = current == 'job:' .. job_id or pending_job_id(current) == job_id
redis.call('ZREM', reservations, job_id)
if redis.call('EXISTS', ARGV[3] .. job_id) == 1 then
  if ours then confirm(claim_key, reservations, job_id, tonumber(ARGV[2])) end
  return 1
end
if ours then redis.call('DEL', claim_key) end
if redis.call('GET', lookup) == job_id then redis.call('DEL', lookup) end
return 0
`;

export type ClaimAnswer = ['rate_limited', number] | ['duplicate'] | ['busy'] | ['ignored'] | ['backpressure'] | ['claimed'];

export interface AcceptKeys {
  claim: string;
  reservations: string;
  lookup: string;
  rateBase: string;
}

export interface ClaimArgs {
  rateLimit: number;
  rateWindowMs: number;
  /** Empty for an event the route's filter ignores. */
  jobId: string;
  maxPending: number;
  pendingClaimMs: number;
  dedupeTtlMs: number;
  lookupTtlMs: number;
  jobKeyPrefix: string;
}

type ClaimCommand = (...args: Array<string | number>) => Promise<ClaimAnswer>;
type SettleCommand = (...args: Array<string | number>) => Promise<number>;

/** The two scripts, defined once on the store's connection. */
export class AcceptScripts {
  private readonly claimCommand: ClaimCommand;
  private readonly settleCommand: SettleCommand;

  constructor(client: Redis) {
    client.defineCommand('hookwiseAcceptClaim', { numberOfKeys: 4, lua: CLAIM_LUA });
    client.defineCommand('hookwiseAcceptSettle', { numberOfKeys: 3, lua: SETTLE_LUA });
    const commands = client as unknown as { hookwiseAcceptClaim: ClaimCommand; hookwiseAcceptSettle: SettleCommand };
    this.claimCommand = commands.hookwiseAcceptClaim.bind(client);
    this.settleCommand = commands.hookwiseAcceptSettle.bind(client);
  }

  async claim(keys: AcceptKeys, args: ClaimArgs): Promise<ClaimAnswer> {
    const answer = await this.claimCommand(
      keys.claim,
      keys.reservations,
      keys.lookup,
      keys.rateBase,
      args.rateLimit,
      args.rateWindowMs,
      args.jobId,
      args.maxPending,
      args.pendingClaimMs,
      args.dedupeTtlMs,
      args.lookupTtlMs,
      args.jobKeyPrefix,
    );
    return answer[0] === 'rate_limited' ? ['rate_limited', Number(answer[1])] : answer;
  }

  /** True when the job is stored (and its claim final), false when it is not (and the claim given back). */
  async settle(keys: AcceptKeys, jobId: string, dedupeTtlMs: number, jobKeyPrefix: string): Promise<boolean> {
    return (await this.settleCommand(keys.claim, keys.reservations, keys.lookup, jobId, dedupeTtlMs, jobKeyPrefix)) === 1;
  }
}
