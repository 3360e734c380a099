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
 * new request may pass, the ms left in the window and the hits counted in it.
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
    used = redis.call('INCR', key)
    redis.call('PEXPIRE', key, size * 2)
  end
  return allowed, start + size - now, used
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

/**
 * A peek answered without Redis needs at least this many hits left in the window as the last accept saw it, and
 * that view must be younger than PEEK_FRESH_MS: other gateways cannot plausibly have used the rest meanwhile,
 * and if they did, the accept script (which peeks again, atomically) answers rate_limited. Smaller windows, the
 * ones tests and most routes have, are always asked of Redis, so their peek is exact.
 */
const PEEK_HEADROOM = 100;
const PEEK_FRESH_MS = 1000;

/** A route's window as this process last saw it: the limit then, hits counted, when the window ends and when it was seen (local ms). */
interface SeenWindow {
  limit: number;
  used: number;
  endsAt: number;
  seenAt: number;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly command: WindowCommand;
  private readonly seen = new Map<string, SeenWindow>();

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

  /**
   * What the store's accept learned of a route's window (`used` hits with `leftMs` to go; `used >= limit`: full),
   * so that the pipeline's early peek costs no round trip: a full window stays full until it ends, and a window
   * with plenty of room (see PEEK_HEADROOM) is taken to have room for a moment.
   */
  learn(route: string, limit: number, used: number, leftMs: number): void {
    const now = Date.now();
    this.seen.set(route, { limit, used, endsAt: now + leftMs, seenAt: now });
  }

  /** A peek answered from what the last accept saw, or undefined when Redis must be asked. */
  private known(route: string, limit: number): RateWindow | undefined {
    const seen = this.seen.get(route);
    const now = Date.now();
    if (!seen || seen.limit !== limit || now >= seen.endsAt) return undefined;
    if (seen.used >= limit) return { allowed: false, retryAfterSeconds: retryAfterSeconds(seen.endsAt - now) };
    if (limit - seen.used >= PEEK_HEADROOM && now - seen.seenAt < PEEK_FRESH_MS)
      return { allowed: true, retryAfterSeconds: retryAfterSeconds(seen.endsAt - now) };
    return undefined;
  }

  check(route: string, limit: number): Promise<RateWindow> {
    return Promise.resolve(this.known(route, limit) ?? this.window(route, limit, '0'));
  }

  hit(route: string, limit: number): Promise<RateWindow> {
    return this.window(route, limit, '1');
  }
}
