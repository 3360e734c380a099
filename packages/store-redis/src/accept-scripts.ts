// The Lua script behind the Redis store's accept and enqueue: rate hit, claim, backpressure, coalescing and the job, in one atomic step.
import type { Redis } from 'ioredis';
import { BULLMQ_LAYOUT_FUNCTIONS } from './bullmq-layout';
import { RATE_WINDOW_FUNCTIONS } from './rate-limiter';

/**
 * A delivery-id key holds `job:<job id>` (the job is stored, or the event was merged into that job), `ignored`
 * (the route's filter ignored the event) or `1` (a plain `DeliveryIdCache.claim`): all mean duplicate until the
 * key expires (1 hour). Gateways of versions before the one-step accept also wrote `pending:<since ms, Redis
 * clock>:<job id>` while their job was being stored; this script still reads those (see the README), never writes one.
 *
 * A coalescing job has a pointer hash, `<prefix>:coalesce:<route>:<key>`, while it is delayed and never leased:
 * `job` (its id), `head` (its data JSON up to the event), `ids` (the delivery ids' JSON, comma-joined), `payloads`
 * (mode all: the payloads' JSON, comma-joined) and `count`. A merge rebuilds the job's data from these, so no
 * payload is ever decoded by Lua's cjson (which would turn an empty array into `{}` and round numbers). The lease
 * deletes the pointer when it takes the job (`LEASE_GATE_LUA` in job-queue.ts); a pointer whose job has left the
 * delayed set meanwhile is not merged into, whichever happened first.
 */
const ACCEPT_LUA = `${RATE_WINDOW_FUNCTIONS}${BULLMQ_LAYOUT_FUNCTIONS}
local function legacy_pending(value)
  local since, job_id = string.match(value, '^pending:(%d+):(.+)$')
  return job_id, tonumber(since)
end
local function job_data(head, event, payload, ids, payloads, coalesce)
  local data = head .. ',"event":' .. event .. ',"payload":' .. payload
  if coalesce == '' then return data .. '}' end
  data = data .. ',"coalesced":{"deliveryIds":[' .. ids .. ']'
  if coalesce == 'all' then data = data .. ',"payloads":[' .. payloads .. ']' end
  return data .. '}}'
end

local claim_key, lookup, rate_base, pointer = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local mode, limit, window_ms, job_id = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local max_pending, pending_ms, ttl, lookup_ttl, q = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9]
local head, event, payload, delivery_id, opts = ARGV[10], ARGV[11], ARGV[12], ARGV[13], ARGV[14]
local timestamp, delay, coalesce, max_events, pointer_ttl = tonumber(ARGV[15]), tonumber(ARGV[16]), ARGV[17], tonumber(ARGV[18]), tonumber(ARGV[19])

local now = 0
if mode == 'accept' then
  now = now_ms()
  local allowed, left = rate_window(rate_base, limit, window_ms, false, now)
  if not allowed then return { 'rate_limited', left } end
  local current = redis.call('GET', claim_key)
  if current then
    local owner, since = legacy_pending(current)
    if not owner then return { 'duplicate' } end
    if redis.call('EXISTS', q .. owner) == 1 then
      redis.call('SET', claim_key, 'job:' .. owner, 'PX', ttl)
      return { 'duplicate' }
    end
    if now - since < pending_ms then return { 'busy' } end
    -- Pending for longer than any enqueue takes and still no job: its claimer died. The claim is ours to take.
  end
  if job_id == '' then
    redis.call('SET', claim_key, 'ignored', 'PX', ttl)
    return { 'ignored' }
  end
  if bull_queued(q) >= max_pending then return { 'backpressure' } end
end

local target, merged = job_id, false
if coalesce ~= '' then
  local open = redis.call('HMGET', pointer, 'job', 'head', 'ids', 'payloads', 'count')
  if open[1] and tonumber(open[5]) < max_events and bull_is_delayed(q, open[1]) then
    target, merged = open[1], true
    local ids = open[3] .. ',' .. delivery_id
    local payloads = open[4]
    if coalesce == 'all' then payloads = payloads .. ',' .. payload end
    redis.call('HSET', q .. target, 'data', job_data(open[2], event, payload, ids, payloads, coalesce))
    redis.call('HSET', pointer, 'ids', ids, 'payloads', payloads, 'count', tonumber(open[5]) + 1)
  end
end
if not merged then
  local payloads = coalesce == 'all' and payload or ''
  bull_add(q, job_id, 'event', job_data(head, event, payload, delivery_id, payloads, coalesce), opts, timestamp, delay)
  if coalesce ~= '' and delay > 0 then
    redis.call('DEL', pointer)
    redis.call('HSET', pointer, 'job', job_id, 'head', head, 'ids', delivery_id, 'payloads', payloads, 'count', 1)
    redis.call('PEXPIRE', pointer, pointer_ttl)
  end
end
local used, left = 0, 0
if mode == 'accept' then
  -- Accepted work: the one answer that counts against the window (the peek above saw room; nothing ran since).
  local _
  _, left, used = rate_window(rate_base, limit, window_ms, true, now)
  redis.call('SET', claim_key, 'job:' .. target, 'PX', ttl)
end
redis.call('SET', lookup, target, 'PX', lookup_ttl)
return { merged and 'coalesced' or 'accepted', target, used, left }
`;

export type AcceptAnswer =
  ['rate_limited', number] | ['duplicate'] | ['busy'] | ['ignored'] | ['backpressure'] | ['accepted', string, WindowSeen] | ['coalesced', string, WindowSeen];

/** The route's rate window as an accept left it: hits counted, ms left. */
export interface WindowSeen {
  used: number;
  leftMs: number;
}

/** The keys of one accept: the route's delivery-id claim, the delivery-id lookup, the rate window base, the coalesce pointer. */
export interface AcceptKeys {
  claim: string;
  lookup: string;
  rateBase: string;
  /** A key no one writes when the job does not coalesce. */
  pointer: string;
}

/** One accept (or, with `mode: 'enqueue'`, a plain enqueue: no rate, claim or backpressure) in the script's terms. */
export interface AcceptArgs {
  mode: 'accept' | 'enqueue';
  rateLimit: number;
  rateWindowMs: number;
  /** Empty for an event the route's filter ignores. */
  jobId: string;
  maxPending: number;
  pendingClaimMs: number;
  dedupeTtlMs: number;
  lookupTtlMs: number;
  /** bullmq's `queue.toKey('')`. */
  queueKeyPrefix: string;
  /** The job data's JSON up to (not including) the event: `{"route":...,...` without the closing brace. */
  head: string;
  eventJson: string;
  payloadJson: string;
  deliveryIdJson: string;
  /** bullmq's `opts` field for a new job. */
  opts: string;
  timestamp: number;
  delayMs: number;
  coalesce: '' | 'latest' | 'all';
  coalesceMaxEvents: number;
  pointerTtlMs: number;
}

type AcceptCommand = (...args: Array<string | number>) => Promise<AcceptAnswer>;

/** The script, defined once on the store's connection (ioredis sends it by its SHA, loading it when Redis lacks it). */
export class AcceptScript {
  private readonly command: AcceptCommand;

  constructor(client: Redis) {
    client.defineCommand('hookwiseAccept', { numberOfKeys: 4, lua: ACCEPT_LUA });
    this.command = (client as unknown as { hookwiseAccept: AcceptCommand }).hookwiseAccept.bind(client);
  }

  async run(keys: AcceptKeys, args: AcceptArgs): Promise<AcceptAnswer> {
    const answer = await this.command(
      keys.claim,
      keys.lookup,
      keys.rateBase,
      keys.pointer,
      args.mode,
      args.rateLimit,
      args.rateWindowMs,
      args.jobId,
      args.maxPending,
      args.pendingClaimMs,
      args.dedupeTtlMs,
      args.lookupTtlMs,
      args.queueKeyPrefix,
      args.head,
      args.eventJson,
      args.payloadJson,
      args.deliveryIdJson,
      args.opts,
      args.timestamp,
      args.delayMs,
      args.coalesce,
      args.coalesceMaxEvents,
      args.pointerTtlMs,
    );
    if (answer[0] === 'rate_limited') return ['rate_limited', Number(answer[1])];
    if (answer[0] === 'accepted' || answer[0] === 'coalesced') {
      const [outcome, jobId, used, leftMs] = answer as unknown as [(typeof answer)[0], string, number, number];
      return [outcome, String(jobId), { used: Number(used), leftMs: Number(leftMs) }];
    }
    return answer;
  }
}
