// An access token fetched on demand, cached until shortly before it expires, refreshed by one caller at a
// time; for platforms that trade app credentials for short-lived tokens (enterprise messengers).

export interface IssuedToken {
  token: string;
  /** Lifetime the platform announced; unknown lifetimes are kept until invalidated. */
  expiresInSeconds?: number;
}

export interface CachedTokenOptions {
  /** Refresh this many seconds before the announced expiry (clock skew, request time). Default 300. */
  earlySeconds?: number;
  now?: () => number;
}

export class CachedToken {
  private current?: { token: string; expiresAt: number };
  private pending?: Promise<string>;

  constructor(
    private readonly issue: (signal: AbortSignal) => Promise<IssuedToken>,
    private readonly opts: CachedTokenOptions = {},
  ) {}

  async get(signal: AbortSignal): Promise<string> {
    const now = (this.opts.now ?? Date.now)();
    if (this.current && now < this.current.expiresAt) return this.current.token;
    // Single flight: concurrent deliveries share one token request.
    this.pending ??= this.issue(signal)
      .then((issued) => {
        const early = this.opts.earlySeconds ?? 300;
        const life = issued.expiresInSeconds === undefined ? Infinity : Math.max(0, issued.expiresInSeconds - early) * 1000;
        this.current = { token: issued.token, expiresAt: (this.opts.now ?? Date.now)() + life };
        return issued.token;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /** Drops `token` if it is still the cached one (another caller may have refreshed it already). */
  invalidate(token?: string): void {
    if (!token || this.current?.token === token) this.current = undefined;
  }
}
