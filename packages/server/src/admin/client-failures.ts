// Failed sign-ins and bearer tokens on the operator surfaces (/ui, /api), counted per client address in a fixed
// minute: a client over the limit is answered 429 until its minute ends, and no other client is affected (a global
// count let 20 wrong tokens from anywhere lock the right token out). The table is bounded, so a flood of
// addresses costs bounded memory: when full, the oldest minute's entries go first.
import type { IncomingMessage } from 'node:http';

/** Failures per client address per minute, for sign-in and for bearer tokens each. */
export const ADMIN_FAILURES_PER_MINUTE = 20;
const WINDOW_MS = 60_000;
const MAX_CLIENTS = 10_000;

/** The TCP peer's address (proxies are not trusted here: behind one, every client shares its address). */
export function adminClientOf(req: IncomingMessage): string {
  return (req.socket?.remoteAddress ?? 'unknown').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}

export class ClientFailures {
  private readonly counts = new Map<string, { window: number; count: number }>();

  constructor(
    private readonly limit = ADMIN_FAILURES_PER_MINUTE,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until the client may try again; undefined when it is not over the limit. */
  blockedFor(client: string): number | undefined {
    const window = Math.floor(this.now() / WINDOW_MS);
    const entry = this.counts.get(client);
    if (!entry || entry.window !== window || entry.count < this.limit) return undefined;
    return Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - this.now()) / 1000));
  }

  failed(client: string): void {
    const window = Math.floor(this.now() / WINDOW_MS);
    const entry = this.counts.get(client);
    if (entry && entry.window === window) {
      entry.count += 1;
      return;
    }
    this.counts.delete(client);
    if (this.counts.size >= MAX_CLIENTS) this.evict(window);
    this.counts.set(client, { window, count: 1 });
  }

  /** Drops past minutes' entries; when every entry is current, the oldest inserted (Map order). */
  private evict(window: number): void {
    for (const [client, entry] of this.counts) if (entry.window !== window) this.counts.delete(client);
    if (this.counts.size >= MAX_CLIENTS) this.counts.delete(this.counts.keys().next().value as string);
  }
}
