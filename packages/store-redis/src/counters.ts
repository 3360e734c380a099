// Budget counters in Redis: fixed windows on Redis's clock, shared by every gateway on the Redis.
import type { WindowCounters } from '@hookwise/core';
import type { Redis } from 'ioredis';

/** How long a window's key outlives the window (a gateway reading it just at the end still finds it). */
const WINDOW_SLACK_MS = 60_000;

/**
 * KEYS[1] the counter's key base (key and window length); ARGV: amount (0 peeks), window ms, slack ms. The window starts at a multiple of
 * its length since the epoch on Redis's clock (so gateways whose clocks drift share one window); the key
 * `<base>:<window start>` expires with the window plus the slack. Returns the window's total after the add.
 */
const ADD_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local size, amount = tonumber(ARGV[2]), tonumber(ARGV[1])
local start = now - (now % size)
local key = KEYS[1] .. ':' .. start
if amount == 0 then return tonumber(redis.call('GET', key) or '0') end
local total = redis.call('INCRBY', key, amount)
redis.call('PEXPIRE', key, start + size - now + tonumber(ARGV[3]))
return total
`;

type AddCommand = (key: string, amount: number, windowMs: number, slackMs: number) => Promise<number>;

export class RedisWindowCounters implements WindowCounters {
  private readonly command: AddCommand;

  constructor(
    client: Redis,
    private readonly prefix: string,
  ) {
    client.defineCommand('hookwiseCounterAdd', { numberOfKeys: 1, lua: ADD_LUA });
    this.command = (client as unknown as { hookwiseCounterAdd: AddCommand }).hookwiseCounterAdd.bind(client);
  }

  async add(key: string, amount: number, windowMs: number): Promise<number> {
    const size = Math.max(1, Math.round(windowMs));
    return Number(await this.command(`${this.prefix}:counter:${key}:${size}`, Math.round(amount), size, WINDOW_SLACK_MS));
  }
}
