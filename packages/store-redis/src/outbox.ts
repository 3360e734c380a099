// The outbox in Redis: messages to other systems (notify: lifecycle webhooks) kept until sent, shared by every
// gateway on the Redis. Per target, under the store's prefix: `<prefix>:outbox:due:<target>` is a sorted set of
// message ids scored by when each is due; `outbox:order:<target>` scores them by the order added (from
// `outbox:seq:<target>`), `outbox:body:<target>` and `outbox:tries:<target>` hash their text and failed attempts. Every change is one Lua script, so a claim is atomic: two
// gateways never both get a message.
import type { Outbox, OutboxMessage } from '@hookwise/core';
import type { Redis } from 'ioredis';

/** KEYS: due, order, body, tries, seq. ARGV: id, body, now, max. Adds (or replaces) and drops the oldest beyond max. */
const ADD_LUA = `
local id = ARGV[1]
if not redis.call('ZSCORE', KEYS[2], id) then redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[5]), id) end
redis.call('ZADD', KEYS[1], ARGV[3], id)
redis.call('HSET', KEYS[3], id, ARGV[2])
redis.call('HSET', KEYS[4], id, 0)
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if excess <= 0 then return 0 end
local oldest = redis.call('ZRANGE', KEYS[2], 0, excess - 1)
for _, old in ipairs(oldest) do
  redis.call('ZREM', KEYS[2], old)
  redis.call('ZREM', KEYS[1], old)
  redis.call('HDEL', KEYS[3], old)
  redis.call('HDEL', KEYS[4], old)
end
return #oldest
`;

/**
 * KEYS: due, order, body, tries. ARGV: now, limit, lease ms. The due ids, first added first, up to limit; each is
 * moved to now + lease (claimed) and returned as id, body, attempts triples.
 */
const DUE_LUA = `
local now = tonumber(ARGV[1])
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
local seq = {}
for _, id in ipairs(ids) do seq[id] = tonumber(redis.call('ZSCORE', KEYS[2], id) or '0') end
table.sort(ids, function(a, b) return seq[a] < seq[b] end)
local out = {}
for i = 1, math.min(#ids, tonumber(ARGV[2])) do
  local id = ids[i]
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), id)
  table.insert(out, id)
  table.insert(out, redis.call('HGET', KEYS[3], id) or '')
  table.insert(out, redis.call('HGET', KEYS[4], id) or '0')
end
return out
`;

/** KEYS: due, order, body, tries. ARGV: id. */
const DONE_LUA = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
return 1
`;

/** KEYS: due, tries. ARGV: id, at, attempts. Only a message still there: one dropped or done is not brought back. */
const RETRY_LUA = `
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 1
`;

type Command = (...args: Array<string | number>) => Promise<unknown>;

export class RedisOutbox implements Outbox {
  private readonly run: Record<'add' | 'due' | 'done' | 'retry', Command>;

  constructor(
    client: Redis,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    const scripts = { add: [5, ADD_LUA], due: [4, DUE_LUA], done: [4, DONE_LUA], retry: [2, RETRY_LUA] } as const;
    const commands = {} as Record<'add' | 'due' | 'done' | 'retry', Command>;
    for (const [name, [numberOfKeys, lua]] of Object.entries(scripts)) {
      const command = `hookwiseOutbox_${name}`;
      client.defineCommand(command, { numberOfKeys, lua });
      commands[name as keyof typeof scripts] = (client as unknown as Record<string, Command>)[command].bind(client);
    }
    this.run = commands;
  }

  private keys(target: string): { due: string; order: string; body: string; tries: string; seq: string } {
    // The part's name before the target's, so no target's keys can be another's.
    const key = (part: string): string => `${this.prefix}:outbox:${part}:${target}`;
    return { due: key('due'), order: key('order'), body: key('body'), tries: key('tries'), seq: key('seq') };
  }

  async add(target: string, message: { id: string; body: string }, max: number): Promise<{ dropped: number }> {
    const k = this.keys(target);
    const dropped = await this.run.add(k.due, k.order, k.body, k.tries, k.seq, message.id, message.body, this.now(), Math.max(0, max));
    return { dropped: Number(dropped) };
  }

  async due(target: string, limit: number, leaseMs: number): Promise<OutboxMessage[]> {
    const k = this.keys(target);
    const flat = (await this.run.due(k.due, k.order, k.body, k.tries, this.now(), Math.max(0, limit), Math.round(leaseMs))) as string[];
    const messages: OutboxMessage[] = [];
    for (let i = 0; i < flat.length; i += 3) messages.push({ id: flat[i], body: flat[i + 1], attempts: Number(flat[i + 2]) });
    return messages;
  }

  async done(target: string, id: string): Promise<void> {
    const k = this.keys(target);
    await this.run.done(k.due, k.order, k.body, k.tries, id);
  }

  async retryLater(target: string, id: string, at: number, attempts: number): Promise<void> {
    const k = this.keys(target);
    await this.run.retry(k.due, k.tries, id, Math.round(at), attempts);
  }
}
