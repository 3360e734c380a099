// What this store writes in bullmq's own keys from its Lua scripts, so that an accept is one atomic round trip.
//
// bullmq's add is a script of its own, and Redis cannot call one script from another: to store the delivery-id
// claim and the job in one step, the accept script writes the job the way bullmq's `addStandardJob` and
// `addDelayedJob` scripts do (the parts of them this store uses: no parents, priorities, deduplication or
// repeat). That couples this file to bullmq's key layout, so bullmq's version is pinned exactly in package.json
// and `test/integration/bullmq-layout.test.ts` compares what these functions write with what `Queue.add` writes
// (fields, lists, marker, events) and lets bullmq's own worker take both jobs: it fails when an upgrade changes
// the layout. Everything else (leases, locks, stalled jobs, completion, retries) still goes through bullmq.

/** The bullmq version the layout below was written against (the test fails when another one is installed). */
export const BULLMQ_LAYOUT_VERSION = '5.81.5';

/** The job name every Hookwise job has in bullmq. */
export const BULL_JOB_NAME = 'event';

/**
 * The `opts` field bullmq stores for a job added with this store's options (`attempts: 1`, done jobs removed after
 * `removeOnCompleteS` seconds, failed ones kept), as `Queue.add` writes it (key order does not matter to bullmq).
 */
export function bullJobOpts(jobId: string, removeOnCompleteS: number, delayMs: number): string {
  const delay = delayMs > 0 ? `,"delay":${delayMs}` : '';
  return `{"jobId":${JSON.stringify(jobId)},"removeOnComplete":{"age":${removeOnCompleteS}},"removeOnFail":false${delay},"attempts":1}`;
}

/**
 * Lua functions on a queue's key prefix `q` (`<prefix>:jobs:`, bullmq's `queue.toKey('')`; one queue per script call):
 * - `bull_add(q, id, name, data, opts, timestamp, delay)`: stores a job as bullmq's add scripts do: waiting (at the
 *   back of the wait list, or the paused list) when `delay` is 0, delayed until `timestamp + delay` otherwise.
 * - `bull_promote_front(q, id)`: moves a delayed job to the front of the wait list (the next one a worker takes),
 *   as bullmq's `promote` does but at the front; false when the job is not delayed (any more).
 * - `bull_queued(q)`: jobs waiting, delayed or running (what backpressure counts).
 * - `bull_is_delayed(q, id)`.
 */
export const BULLMQ_LAYOUT_FUNCTIONS = `
-- A script that changes neither the queue's meta nor its active list (the accept script) sets bull_memo to {}
-- at its start, so that the meta is read once per call instead of once per job added.
local bull_memo
local function bull_max_events(q)
  if bull_memo and bull_memo.max_events then return bull_memo.max_events end
  local max_events = redis.call('HGET', q .. 'meta', 'opts.maxLenEvents')
  if not max_events then
    max_events = 10000
    redis.call('HSET', q .. 'meta', 'opts.maxLenEvents', max_events)
  end
  if bull_memo then bull_memo.max_events = max_events end
  return max_events
end
local function bull_target_list(q)
  if bull_memo and bull_memo.list then return bull_memo.list, bull_memo.held end
  local list, held = q .. 'wait', false
  local meta = redis.call('HMGET', q .. 'meta', 'paused', 'concurrency')
  if meta[1] then
    list, held = q .. 'paused', true
  elseif meta[2] and redis.call('LLEN', q .. 'active') >= tonumber(meta[2]) then
    held = true
  end
  if bull_memo then bull_memo.list, bull_memo.held = list, held end
  return list, held
end
local function bull_delayed_score(q, at)
  local min_score, max_score = at * 0x1000, (at + 1) * 0x1000 - 1
  local last = redis.call('ZREVRANGEBYSCORE', q .. 'delayed', max_score, min_score, 'WITHSCORES', 'LIMIT', 0, 1)
  local current = tonumber(last[2])
  if current == nil then return min_score end
  if current >= max_score then return max_score end
  return current + 1
end
local function bull_add(q, id, name, data, opts, timestamp, delay)
  redis.call('INCR', q .. 'id')
  local max_events = bull_max_events(q)
  redis.call('HMSET', q .. id, 'name', name, 'data', data, 'opts', opts, 'timestamp', timestamp, 'delay', delay, 'priority', 0)
  redis.call('XADD', q .. 'events', '*', 'event', 'added', 'jobId', id, 'name', name)
  if delay > 0 then
    local at = timestamp + delay
    redis.call('ZADD', q .. 'delayed', bull_delayed_score(q, at), id)
    redis.call('XADD', q .. 'events', 'MAXLEN', '~', max_events, '*', 'event', 'delayed', 'jobId', id, 'delay', at)
    local first = redis.call('ZRANGE', q .. 'delayed', 0, 0, 'WITHSCORES')
    if first[2] then redis.call('ZADD', q .. 'marker', tonumber(first[2]) / 0x1000, '1') end
  else
    local list, held = bull_target_list(q)
    redis.call('LPUSH', list, id)
    if not held then redis.call('ZADD', q .. 'marker', 0, '0') end
    redis.call('XADD', q .. 'events', 'MAXLEN', '~', max_events, '*', 'event', 'waiting', 'jobId', id)
  end
end
local function bull_promote_front(q, id)
  if redis.call('ZREM', q .. 'delayed', id) ~= 1 then return false end
  local list, held = bull_target_list(q)
  redis.call('RPUSH', list, id)
  if not held then redis.call('ZADD', q .. 'marker', 0, '0') end
  redis.call('XADD', q .. 'events', '*', 'event', 'waiting', 'jobId', id, 'prev', 'delayed')
  redis.call('HSET', q .. id, 'delay', 0)
  return true
end
local function bull_queued(q)
  local n = 0
  for _, list in ipairs({ 'wait', 'paused', 'active' }) do n = n + redis.call('LLEN', q .. list) end
  for _, set in ipairs({ 'delayed', 'prioritized' }) do n = n + redis.call('ZCARD', q .. set) end
  return n
end
local function bull_is_delayed(q, id)
  return redis.call('ZSCORE', q .. 'delayed', id) ~= false
end
`;
