// The Lua script behind the Redis store's accept and enqueue: rate hit, claim, backpressure, coalescing and the job, in one atomic step.
import { COALESCE_MAX_EVENTS, DELIVERY_ID_TTL_MS, RATE_WINDOW_MS } from '@hookwise/core';
import type { Redis } from 'ioredis';
import { BULLMQ_LAYOUT_FUNCTIONS } from './bullmq-layout';
import { LIVE_LOOKUP_MS } from './delivery-lookups';
import { RATE_WINDOW_FUNCTIONS } from './rate-limiter';
/**
 * The most accepts one script call decides: Redis serves no other client while a script runs, so a turn that read
 * more requests than this (thousands of connections, large bodies) is sent as several calls, back to back.
 */
export const MAX_GROUP = 100;

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

-- One accept, packed into one argument (packAccept below): the numbers of its header, then the byte lengths
-- of its ten strings, ';', and the strings one after another. One argument per accept instead of 23 keys and
-- arguments: building, counting and framing each argument was most of the gateway's CPU for the call.
local function unpack_accept(s)
  local sep = string.find(s, ';', 1, true)
  local h = {}
  for v in string.gmatch(string.sub(s, 1, sep - 1), '[^,]+') do h[#h + 1] = v end
  local f, pos = {}, sep + 1
  for i = 9, 18 do
    local n = tonumber(h[i])
    f[i - 8] = string.sub(s, pos, pos + n - 1)
    pos = pos + n
  end
  return h, f
end
local COALESCE_MODES = { [0] = '', [1] = 'latest', [2] = 'all' }
-- The call's constants (set below from ARGV[1..5]; Redis allows no global variables).
local q, window_ms, ttl, lookup_ttl, max_events
-- Read once per call, as nothing else runs while it does: Redis's clock (every accept of the call is decided at
-- that instant) and the jobs queued (backpressure), counted once and then kept up to date as jobs are added.
local now, queued

local function accept_one(packed)
  local h, f = unpack_accept(packed)
  local claim_key, lookup, rate_base, pointer = f[1], f[2], f[3], f[4]
  local mode, limit, max_pending, pending_ms = h[1] == '1' and 'accept' or 'enqueue', tonumber(h[2]), tonumber(h[3]), tonumber(h[4])
  local job_id, head, event, payload, delivery_id, opts = f[5], f[6], f[7], f[8], f[9], f[10]
  local timestamp, delay, pointer_ttl, coalesce = tonumber(h[5]), tonumber(h[6]), tonumber(h[7]), COALESCE_MODES[tonumber(h[8])]

  if mode == 'accept' then
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
    if not queued then queued = bull_queued(q) end
    if queued >= max_pending then return { 'backpressure' } end
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
    if queued then queued = queued + 1 end
    if coalesce ~= '' and delay > 0 then
      redis.call('DEL', pointer)
      redis.call('HSET', pointer, 'job', job_id, 'head', head, 'ids', delivery_id, 'payloads', payloads, 'count', 1)
      redis.call('PEXPIRE', pointer, pointer_ttl)
    end
  end
  local used, left = 0, 0
  if mode == 'accept' then
    -- Accepted work: the one answer that counts against the window (the peek above saw room; nothing ran since,
    -- so the count is INCR'd without reading it again). The key lives two windows from its first hit, as
    -- rate_window's count leaves it (rate-limiter.ts); every writer sets the expiry with the INCR that creates it.
    local start = now - (now % window_ms)
    local key = rate_base .. ':' .. start
    used = redis.call('INCR', key)
    if used == 1 then redis.call('PEXPIRE', key, window_ms * 2) end
    left = start + window_ms - now
    redis.call('SET', claim_key, 'job:' .. target, 'PX', ttl)
  end
  redis.call('SET', lookup, target, 'PX', lookup_ttl)
  return { merged and 'coalesced' or 'accepted', target, used, left }
end

-- The group: ARGV[1] the queue's key prefix, ARGV[2..5] the constants of every accept (rate window, delivery-id and
-- lookup TTLs, coalescing's event bound), then one packed accept per argument, decided in the order sent, as if
-- each were a script call of its own (Redis runs nothing else between them). One that Redis refuses answers its
-- error and the others go on, as separate calls would.
q, window_ms, ttl, lookup_ttl, max_events = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
now = now_ms()
bull_memo = {}
local answers = {}
for i = 6, #ARGV do
  local ok, answer = pcall(accept_one, ARGV[i])
  if not ok then
    answer = { 'error', type(answer) == 'table' and answer.err or tostring(answer) }
    -- A write refused half-way: count and read the queue again for the next accept.
    queued, bull_memo = nil, {}
  end
  answers[i - 5] = answer
end
return answers
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

/** One accept (or, with `mode: 'enqueue'`, a plain enqueue: no rate, claim or backpressure) in the script's terms; the job is JobArgs. */
export interface AcceptArgs {
  mode: 'accept' | 'enqueue';
  rateLimit: number;
  maxPending: number;
  pendingClaimMs: number;
}

/** The job of one accept in the script's terms (job-data.ts builds it); every field empty or 0 for an ignored event. */
export interface JobArgs {
  /** Empty for an event the route's filter ignores. */
  jobId: string;
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
  pointerTtlMs: number;
}

/** The script's code of each coalescing mode (COALESCE_MODES in the Lua). */
const COALESCE_CODE = { '': 0, latest: 1, all: 2 } as const;

/**
 * The constants of every accept, sent once per call (ARGV[2..5]): the rate window, the delivery-id claim's TTL, the
 * lookup's TTL while the job lives, and the most events a coalescing job takes.
 */
const CALL_CONSTANTS = [RATE_WINDOW_MS, DELIVERY_ID_TTL_MS, LIVE_LOOKUP_MS, COALESCE_MAX_EVENTS].map(String);
const FIXED_ARGS = 2 + CALL_CONSTANTS.length;

/**
 * One accept as the script's one argument (`unpack_accept` in the Lua): eight numbers, the byte lengths of the ten
 * strings, ';', then the strings. The lengths are UTF-8 bytes, as Redis receives the text (keys hold sender-chosen
 * delivery ids, so no separator can be trusted not to occur in them).
 */
export function packAccept(keys: AcceptKeys, args: AcceptArgs, job: JobArgs): string {
  const { claim, lookup, rateBase, pointer } = keys;
  const { jobId, head, eventJson, payloadJson, deliveryIdJson, opts } = job;
  return (
    `${args.mode === 'accept' ? 1 : 0},${args.rateLimit},${args.maxPending},${args.pendingClaimMs},${job.timestamp},${job.delayMs},${job.pointerTtlMs},${COALESCE_CODE[job.coalesce]},` +
    `${Buffer.byteLength(claim)},${Buffer.byteLength(lookup)},${Buffer.byteLength(rateBase)},${Buffer.byteLength(pointer)},${Buffer.byteLength(jobId)},` +
    `${Buffer.byteLength(head)},${Buffer.byteLength(eventJson)},${Buffer.byteLength(payloadJson)},${Buffer.byteLength(deliveryIdJson)},${Buffer.byteLength(opts)};` +
    claim +
    lookup +
    rateBase +
    pointer +
    jobId +
    head +
    eventJson +
    payloadJson +
    deliveryIdJson +
    opts
  );
}

type AcceptCommand = (argv: string[]) => Promise<RawAnswer[]>;
type RawAnswer = [string, ...Array<string | number>];

interface Queued {
  /** packAccept's text. */
  packed: string;
  resolve: (answer: AcceptAnswer) => void;
  reject: (err: Error) => void;
}

/**
 * The script, defined once on the store's connection (ioredis sends it by its SHA, loading it when Redis lacks it).
 * The accepts asked for in one event-loop turn go to Redis together, in the next check phase, as ONE script call
 * that decides them in the order asked, each exactly as a call of its own would (Redis runs nothing between them),
 * and their answers come back in one reply, so the requests are answered together as well. Sending each accept on
 * its own, the gateway spent about twice the CPU per request the SQLite store's grouped commit costs
 * (docs/performance.md, "Redis store"); the price is one turn of the event loop of latency. Each accept travels as
 * one argument (packAccept), the constants once per call.
 */
export class AcceptScript {
  private readonly command: AcceptCommand;
  private queued: Queued[] = [];

  /** `queueKeyPrefix`: bullmq's `queue.toKey('')` (a job's hash is it plus the job's id). */
  constructor(
    client: Redis,
    private readonly queueKeyPrefix: string,
  ) {
    client.defineCommand('hookwiseAccept', { lua: ACCEPT_LUA });
    this.command = (client as unknown as { hookwiseAccept: AcceptCommand }).hookwiseAccept.bind(client);
  }

  /** One accept (or enqueue) as packAccept packed it, sent with the others asked for in this turn. */
  run(packed: string): Promise<AcceptAnswer> {
    return new Promise((resolve, reject) => {
      if (this.queued.length === 0) setImmediate(this.sendQueued);
      this.queued.push({ packed, resolve, reject });
    });
  }

  /** Sends the turn's accepts, MAX_GROUP to a script call. */
  private readonly sendQueued = (): void => {
    const queued = this.queued;
    this.queued = [];
    for (let from = 0; from < queued.length; from += MAX_GROUP) this.send(queued.slice(from, from + MAX_GROUP));
  };

  /**
   * Sends accepts as one script call. When the call itself fails (the connection is lost, Redis refuses the
   * script), every accept of the group fails with that error; one that Redis refused inside the script fails alone,
   * with Redis's reason.
   */
  private send(group: Queued[]): void {
    // One array (ioredis copies it once more; spreading the arguments into the call cost more). No KEYS: each
    // accept's keys are inside its packed argument (the store does not support Redis Cluster, see the README).
    const n = group.length;
    const argv: string[] = new Array<string>(FIXED_ARGS + n);
    argv[0] = '0';
    argv[1] = this.queueKeyPrefix;
    for (let c = 0; c < CALL_CONSTANTS.length; c += 1) argv[2 + c] = CALL_CONSTANTS[c] as string;
    for (let i = 0; i < n; i += 1) argv[FIXED_ARGS + i] = (group[i] as Queued).packed;
    this.command(argv).then(
      (answers) => {
        for (let i = 0; i < n; i += 1) {
          const { resolve, reject } = group[i] as Queued;
          const answer = answers[i] as RawAnswer;
          if (answer[0] === 'error') reject(new Error(`Redis refused to store the event: ${String(answer[1])}`));
          else resolve(decode(answer));
        }
      },
      (err: Error) => {
        for (const { reject } of group) reject(err);
      },
    );
  }
}

/** The script's answer for one accept in AcceptAnswer's terms (Redis hands numbers and ids back as it likes). */
function decode(answer: RawAnswer): AcceptAnswer {
  if (answer[0] === 'rate_limited') return ['rate_limited', Number(answer[1])];
  if (answer[0] === 'accepted' || answer[0] === 'coalesced') return [answer[0], String(answer[1]), { used: Number(answer[2]), leftMs: Number(answer[3]) }];
  return answer as AcceptAnswer;
}
