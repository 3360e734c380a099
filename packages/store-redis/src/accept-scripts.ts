// The Lua script behind the Redis store's accept and enqueue: rate hit, claim, backpressure, coalescing and the job, in one atomic step.
import type { Redis } from 'ioredis';
import { BULLMQ_LAYOUT_FUNCTIONS } from './bullmq-layout';
import { RATE_WINDOW_FUNCTIONS } from './rate-limiter';

/** What the script takes per accept: the keys of AcceptKeys and the 19 arguments of AcceptArgs, in the order `run` sends them. */
const KEYS_PER_ACCEPT = 4;
const ARGS_PER_ACCEPT = 19;
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

local function accept_one(k, a)
  local claim_key, lookup, rate_base, pointer = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4]
  local mode, limit, window_ms, job_id = ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), ARGV[a + 4]
  local max_pending, pending_ms, ttl, lookup_ttl, q = tonumber(ARGV[a + 5]), tonumber(ARGV[a + 6]), tonumber(ARGV[a + 7]), tonumber(ARGV[a + 8]), ARGV[a + 9]
  local head, event, payload, delivery_id, opts = ARGV[a + 10], ARGV[a + 11], ARGV[a + 12], ARGV[a + 13], ARGV[a + 14]
  local timestamp, delay, coalesce, max_events, pointer_ttl = tonumber(ARGV[a + 15]), tonumber(ARGV[a + 16]), ARGV[a + 17], tonumber(ARGV[a + 18]), tonumber(ARGV[a + 19])

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
end

-- The group: each accept in the order sent, as if each were a script call of its own (Redis runs nothing else
-- between them). One that Redis refuses answers its error and the others go on, as separate calls would.
local answers = {}
for i = 0, #KEYS / ${KEYS_PER_ACCEPT} - 1 do
  local ok, answer = pcall(accept_one, i * ${KEYS_PER_ACCEPT}, i * ${ARGS_PER_ACCEPT})
  if not ok then answer = { 'error', type(answer) == 'table' and answer.err or tostring(answer) } end
  answers[i + 1] = answer
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
  rateWindowMs: number;
  maxPending: number;
  pendingClaimMs: number;
  dedupeTtlMs: number;
  lookupTtlMs: number;
  /** bullmq's `queue.toKey('')`. */
  queueKeyPrefix: string;
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
  coalesceMaxEvents: number;
  pointerTtlMs: number;
}

type AcceptCommand = (argv: Array<string | number>) => Promise<RawAnswer[]>;
type RawAnswer = [string, ...Array<string | number>];

interface Queued {
  keys: AcceptKeys;
  args: AcceptArgs;
  job: JobArgs;
  resolve: (answer: AcceptAnswer) => void;
  reject: (err: Error) => void;
}

/**
 * The script, defined once on the store's connection (ioredis sends it by its SHA, loading it when Redis lacks it).
 * The accepts asked for in one event-loop turn go to Redis together, in the next check phase, as ONE script call
 * that decides them in the order asked, each exactly as a call of its own would (Redis runs nothing between them),
 * and their answers come back in one reply, so the requests are answered together as well. Sending each accept on
 * its own, the gateway spent about twice the CPU per request the SQLite store's grouped commit costs
 * (docs/performance.md, "Redis store"); the price is one turn of the event loop of latency.
 */
export class AcceptScript {
  private readonly command: AcceptCommand;
  private queued: Queued[] = [];

  constructor(client: Redis) {
    client.defineCommand('hookwiseAccept', { lua: ACCEPT_LUA });
    this.command = (client as unknown as { hookwiseAccept: AcceptCommand }).hookwiseAccept.bind(client);
  }

  /** One accept (or enqueue), sent with the others asked for in this turn. */
  run(keys: AcceptKeys, args: AcceptArgs, job: JobArgs): Promise<AcceptAnswer> {
    return new Promise((resolve, reject) => {
      if (this.queued.length === 0) setImmediate(this.sendQueued);
      this.queued.push({ keys, args, job, resolve, reject });
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
    // One array, keys first (ioredis copies it once more; spreading thousands of arguments into the call cost more).
    const n = group.length;
    const argv: Array<string | number> = new Array(1 + n * (KEYS_PER_ACCEPT + ARGS_PER_ACCEPT));
    argv[0] = n * KEYS_PER_ACCEPT;
    for (let i = 0; i < n; i += 1) {
      const { keys: k, args: a, job: j } = group[i] as Queued;
      let at = 1 + i * KEYS_PER_ACCEPT;
      argv[at] = k.claim;
      argv[at + 1] = k.lookup;
      argv[at + 2] = k.rateBase;
      argv[at + 3] = k.pointer;
      at = 1 + n * KEYS_PER_ACCEPT + i * ARGS_PER_ACCEPT;
      argv[at] = a.mode;
      argv[at + 1] = a.rateLimit;
      argv[at + 2] = a.rateWindowMs;
      argv[at + 3] = j.jobId;
      argv[at + 4] = a.maxPending;
      argv[at + 5] = a.pendingClaimMs;
      argv[at + 6] = a.dedupeTtlMs;
      argv[at + 7] = a.lookupTtlMs;
      argv[at + 8] = a.queueKeyPrefix;
      argv[at + 9] = j.head;
      argv[at + 10] = j.eventJson;
      argv[at + 11] = j.payloadJson;
      argv[at + 12] = j.deliveryIdJson;
      argv[at + 13] = j.opts;
      argv[at + 14] = j.timestamp;
      argv[at + 15] = j.delayMs;
      argv[at + 16] = j.coalesce;
      argv[at + 17] = j.coalesceMaxEvents;
      argv[at + 18] = j.pointerTtlMs;
    }
    this.command(argv).then(
      (answers) => {
        for (let i = 0; i < group.length; i += 1) {
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
