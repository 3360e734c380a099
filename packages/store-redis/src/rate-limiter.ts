// Fixed 60 s rate windows in Redis, counted atomically by a Lua script on the Redis clock.
import { RATE_WINDOW_MS, type RateLimiter, type RateWindow } from '@hookwise/core';
import type { Redis } from 'ioredis';

/**
 * Reads (and with ARGV[3] = 1 counts) the current window of one route. The window start comes from Redis's
 * own clock, so gateways whose clocks drift still share one window; a hit is only counted while the
 * window has room, which keeps the counter at most `limit`.
 */
const RATE_WINDOW_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local size = tonumber(ARGV[2])
local start = now - (now % size)
local key = KEYS[1] .. ':' .. start
local count = tonumber(redis.call('GET', key) or '0')
local allowed = count < tonumber(ARGV[1])
if allowed and ARGV[3] == '1' then
  redis.call('INCR', key)
  redis.call('PEXPIRE', key, size * 2)
end
return { allowed and 1 or 0, start + size - now }
`;

type WindowCommand = (key: string, limit: number, windowMs: number, count: '0' | '1') => Promise<[number, number]>;

export class RedisRateLimiter implements RateLimiter {
  private readonly command: WindowCommand;

  constructor(client: Redis, private readonly prefix: string, private readonly windowMs = RATE_WINDOW_MS) {
    client.defineCommand('hookwiseRateWindow', { numberOfKeys: 1, lua: RATE_WINDOW_LUA });
    const bound = (client as unknown as { hookwiseRateWindow: WindowCommand }).hookwiseRateWindow.bind(client);
    this.command = bound;
  }

  private async window(route: string, limit: number, count: '0' | '1'): Promise<RateWindow> {
    const [allowed, remainingMs] = await this.command(`${this.prefix}:rate:${route}`, limit, this.windowMs, count);
    return { allowed: allowed === 1, retryAfterSeconds: Math.max(1, Math.ceil(remainingMs / 1000)) };
  }

  check(route: string, limit: number): Promise<RateWindow> {
    return this.window(route, limit, '0');
  }

  hit(route: string, limit: number): Promise<RateWindow> {
    return this.window(route, limit, '1');
  }
}
