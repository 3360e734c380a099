// The failed-authentication throttle (`auth_failure_limit`): a client address that fails verification too often
// in a minute is answered 429 without being verified until its minute ends, and its warnings are aggregated.
import type { Logger } from 'winston';
import { throttleKey } from './client-address';

/** The window: failures per client per minute. */
export const AUTH_FAILURE_WINDOW_MS = 60_000;
/** Clients remembered at most; under a flood from more addresses the oldest windows are forgotten first. */
const MAX_CLIENTS = 100_000;

interface ClientWindow {
  start: number;
  failures: number;
  /** Failures not logged yet (all but the first of the window), with the routes they hit. */
  unlogged: number;
  routes: Set<string>;
  lastReason: string;
}

export interface AuthFailureThrottleOptions {
  /** Failures per client per minute before it is refused; 0 turns the throttle off (warnings are still aggregated). */
  limit: number;
  logger: Logger;
  now?: () => number;
  windowMs?: number;
}

/**
 * One fixed window per client, from its first failure. A blocked client costs a Map lookup: no body read, no
 * HMAC, no log line. Warnings: the first failure of a client's window is logged at once as before (with the
 * route and the reason, "Invalid signature" or "Missing signature"), the rest are counted and written as one
 * line per client when the window ends, so a flood of forgeries cannot flood the log. Per gateway process:
 * several gateways behind one balancer each count their own.
 */
export class AuthFailureThrottle {
  private readonly clients = new Map<string, ClientWindow>();
  private readonly now: () => number;
  private readonly windowMs: number;
  private flushTimer?: NodeJS.Timeout;

  constructor(private readonly options: AuthFailureThrottleOptions) {
    this.now = options.now ?? Date.now;
    this.windowMs = options.windowMs ?? AUTH_FAILURE_WINDOW_MS;
  }

  /** Seconds until `client` may try again, or 0 when it may be verified now. */
  blockedFor(client: string | undefined): number {
    if (client === undefined || this.options.limit <= 0) return 0;
    const window = this.current(throttleKey(client));
    if (!window || window.failures < this.options.limit) return 0;
    return Math.max(1, Math.ceil((window.start + this.windowMs - this.now()) / 1000));
  }

  /**
   * Records a failed verification. Returns true when the caller should log its warning line now (the first of
   * the client's window, or always for a request without a known address); false when it was counted for the
   * window's summary line.
   */
  failed(client: string | undefined, route: string, reason: string): boolean {
    if (client === undefined) return true;
    const key = throttleKey(client);
    const now = this.now();
    let window = this.current(key);
    if (!window) {
      window = { start: now, failures: 0, unlogged: 0, routes: new Set(), lastReason: reason };
      // Re-inserted so that the Map stays in the order of window starts: the oldest is forgotten first.
      this.clients.delete(key);
      this.clients.set(key, window);
      if (this.clients.size > MAX_CLIENTS) this.forgetOldest();
    }
    window.failures += 1;
    if (window.failures === 1) return true;
    window.unlogged += 1;
    window.lastReason = reason;
    if (window.routes.size < 10) window.routes.add(route);
    this.scheduleFlush();
    return false;
  }

  /** The client's window if it has not ended; an ended one is summarised and dropped. */
  private current(key: string): ClientWindow | undefined {
    const window = this.clients.get(key);
    if (!window) return undefined;
    if (this.now() - window.start < this.windowMs) return window;
    this.summarise(key, window);
    this.clients.delete(key);
    return undefined;
  }

  private summarise(key: string, window: ClientWindow): void {
    if (window.unlogged === 0) return;
    const blocked = this.options.limit > 0 && window.failures >= this.options.limit;
    const routes = [...window.routes].map((r) => `'${r}'`).join(', ');
    this.options.logger.warn(
      `${window.lastReason}: ${window.unlogged} more failed authentication(s) from ${key} in ${Math.round(this.windowMs / 1000)} s on route(s) ${routes} (logged once per client per minute)` +
        (blocked ? `; the client was answered 429 without verification after ${this.options.limit} failures (auth_failure_limit)` : ''),
      { client: key, failures: window.failures },
    );
    window.unlogged = 0;
  }

  /** Summary lines for windows that ended, without waiting for the client's next request. */
  flush(all = false): void {
    const now = this.now();
    for (const [key, window] of this.clients) {
      if (!all && now - window.start < this.windowMs) continue;
      this.summarise(key, window);
      if (!all) this.clients.delete(key);
    }
  }

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flush();
      if ([...this.clients.values()].some((w) => w.unlogged > 0)) this.scheduleFlush();
    }, this.windowMs);
    this.flushTimer.unref();
  }

  private forgetOldest(): void {
    const [key, window] = this.clients.entries().next().value as [string, ClientWindow];
    this.summarise(key, window);
    this.clients.delete(key);
  }

  /** At shutdown: what was counted but not logged yet is logged now. */
  close(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.flush(true);
  }
}
