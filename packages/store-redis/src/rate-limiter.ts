// Fixed 60 s rate windows in Redis, counted atomically by a Lua script on the Redis clock.
import { RATE_WINDOW_MS } from '@hookwise/core';
import { type RateLimiter, type RateWindow } from '@hookwise/core';
import type { Redis } from 'ioredis';

/** The key base of one route's windows (each window adds `:<start ms>`). */
export function rateKey(prefix: string, route: string): string {
  return `${prefix}:rate:${route}`;
}

/**
 * Lua functions shared by the scripts that count windows: `now_ms()` reads Redis's own clock, and
 * `rate_window(base, limit, size, count, now)` reads (and with `count` true counts) the current window of one
 * route. The window start comes from Redis's clock, so gateways whose clocks drift still share one window; a
 * hit is only counted while the window has room, which keeps the counter at most `limit`. It returns whether a
 * new request may pass and the ms left in the window.
 */
export const RATE_WINDOW_FUNCTIONS = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function rate_window(base, limit, size, count, now)
  local start = now - (now % size)
  local key = base .. ':' .. start
  local used = tonumber(redis.call('GET', key) or '0')
  local allowed = used < limit
  if allowed and count then
    redis.call('INCR', key)
    redis.call('PEXPIRE', key, size * 2)
  end
  return allowed, start + size - now
end
`;

/** KEYS[1] the route's key base; ARGV: limit, window ms, '1' to count the hit. */
const RATE_WINDOW_LUA = `${RATE_WINDOW_FUNCTIONS}
local allowed, left = rate_window(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3] == '1', now_ms())
return { allowed and 1 or 0, left }
`;

type WindowCommand = (key: string, limit: number, windowMs: number, count: '0' | '1') => Promise<[number, number]>;

/** Seconds a refused sender should wait: the rest of the window, at least 1. */
export function retryAfterSeconds(remainingMs: number): number {
  return Math.max(1, Math.ceil(remainingMs / 1000));
}

export class RedisRateLimiter implements RateLimiter {
  private readonly command: WindowCommand;

  constructor(
    client: Redis,
    private readonly prefix: string,
    private readonly windowMs = RATE_WINDOW_MS,
  ) {
    client.defineCommand('hookwiseRateWindow', { numberOfKeys: 1, lua: RATE_WINDOW_LUA });
    const bound = (client as unknown as { hookwiseRateWindow: WindowCommand }).hookwiseRateWindow.bind(client);
    this.command = bound;
  }

  private async window(route: string, limit: number, count: '0' | '1'): Promise<RateWindow> {
    const [allowed, remainingMs] = await this.command(rateKey(this.prefix, route), limit, this.windowMs, count);
    return { allowed: allowed === 1, retryAfterSeconds: retryAfterSeconds(remainingMs) };
  }

  check(route: string, limit: number): Promise<RateWindow> {
    return this.window(route, limit, '0');
  }

  hit(route: string, limit: number): Promise<RateWindow> {
    return this.window(route, limit, '1');
  }
}
