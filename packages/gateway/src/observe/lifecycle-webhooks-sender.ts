// One `notify:` target's sender: lifecycle messages go into the store's outbox (so a stop or crash loses none on a
// persistent store) and a loop takes the due ones, posts them signed in the Standard Webhooks format, and marks
// each done or schedules its retry. The outbox's claim is atomic, so gateways sharing a store send a message once.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'winston';
import { errorMessage, type Outbox, type OutboxMessage } from '@hookwise/core';
import { backoffDelay } from '../config/retry-policy';

export interface SenderSettings {
  /** Messages kept per target; beyond it the oldest are dropped (with a warning). */
  maxQueue: number;
  /** Attempts per message before it is dropped (with a warning). */
  maxAttempts: number;
  /** Delay before the first retry, doubled each time up to maxDelayMs, with the workers' jitter (jobs/retries.ts). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** One POST's time limit. */
  timeoutMs: number;
  /** How often an idle sender looks for due messages (retries, and messages left by a stopped or crashed gateway). */
  pollMs: number;
}

export interface SenderTarget {
  /** The target's outbox key (derived from its URL, never the secret). */
  key: string;
  url: string;
  /** Where the target is, for log lines (no query: it may hold a token). */
  shown: string;
  sign(id: string, timestamp: number, body: string): string;
  /** What the log lines call it (default `notify <shown>`). */
  label?: string;
  /** Headers sent besides the Standard Webhooks ones (an MCP subscription's id). */
  headers?: Record<string, string>;
  /** Asked before each attempt, so a check of where the URL leads holds at delivery time: a refusal is final. */
  check?(): Promise<string | undefined>;
}

/** What became of one attempt, for a sender's owner that counts or reports deliveries. */
export interface SendReport {
  messageId: string;
  outcome: 'delivered' | 'retrying' | 'failed';
  /** Attempts made so far, this one included. */
  attempts: number;
  error?: string;
  durationMs: number;
}

/** Messages claimed at once: the claim's lease must cover posting all of them. */
const BATCH = 10;

export class OutboxSender {
  private closed = false;
  private loop: Promise<void> | undefined;
  private readonly writes = new Set<Promise<void>>();
  private wake: (() => void) | undefined;
  /** While a failed message waits for its retry nothing else is sent (the order is kept, a down target not hammered). */
  private backoffUntil = 0;
  private dropped = 0;
  private storeFailing = false;
  private readonly controller = new AbortController();

  constructor(
    private readonly target: SenderTarget,
    private readonly outbox: Outbox,
    private readonly settings: SenderSettings,
    private readonly logger: Logger,
    private readonly report?: (report: SendReport) => void,
  ) {
    this.name = target.label ?? `notify ${target.shown}`;
  }

  private readonly name: string;

  /** Writes a message to the outbox without waiting: the lifecycle emitter is synchronous and on the hot path. */
  push(body: string): void {
    if (this.closed) return;
    const write = this.outbox.add(this.target.key, { id: `msg_${randomUUID()}`, body }, this.settings.maxQueue).then(
      ({ dropped }) => {
        // One warning per burst of drops, not one per message.
        if (dropped > 0 && this.dropped === 0) this.logger.warn(`${this.name}: outbox full (${this.settings.maxQueue}); dropping the oldest messages`);
        this.dropped += dropped;
        if (Date.now() >= this.backoffUntil) this.wake?.();
      },
      (err: unknown) => {
        this.logger.warn(`${this.name}: a message could not be kept in the store's outbox and is not sent (${errorMessage(err)})`);
      },
    );
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }

  /** Starts the loop: it also sends what an earlier run left in the outbox. */
  start(): void {
    this.loop ??= this.run();
  }

  /** Waits for the pending outbox writes, then stops the loop; a message being posted is given back unsent. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.writes]);
    this.closed = true;
    this.controller.abort();
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    const leaseMs = BATCH * this.settings.timeoutMs + 5000;
    while (!this.closed) {
      try {
        const batch = await this.outbox.due(this.target.key, BATCH, leaseMs);
        this.storeOk();
        if (batch.length) await this.send(batch);
        else await this.sleep(this.settings.pollMs);
      } catch (err) {
        if (!this.storeFailing) this.logger.warn(`${this.name}: the store's outbox failed (${errorMessage(err)}); trying again`);
        this.storeFailing = true;
        await this.sleep(this.settings.pollMs);
      }
    }
  }

  private storeOk(): void {
    if (!this.storeFailing) return;
    this.storeFailing = false;
    this.logger.info(`${this.name}: the store's outbox works again`);
  }

  /** Posts a claimed batch in order; stops at the first failure, giving the rest back. */
  private async send(batch: OutboxMessage[]): Promise<void> {
    for (let i = 0; i < batch.length; i += 1) {
      const message = batch[i];
      const started = Date.now();
      const error = this.closed ? 'stopping' : await this.post(message);
      const told = (outcome: SendReport['outcome'], why?: string) =>
        this.report?.({ messageId: message.id, outcome, attempts: message.attempts + 1, error: why, durationMs: Date.now() - started });
      if (this.closed) {
        // Not counted as an attempt: the gateway is stopping, the next run (or another gateway) sends them.
        await this.giveBack(batch.slice(i));
        return;
      }
      if (error === undefined) {
        await this.outbox.done(this.target.key, message.id);
        this.dropped = 0;
        told('delivered');
        continue;
      }
      if (typeof error === 'object') {
        // A redirect is the target's configuration, not a passing fault: the same answer would come on every attempt.
        this.logger.warn(`${this.name}: dropped ${message.id}, not retried: ${error.final}`);
        await this.outbox.done(this.target.key, message.id);
        told('failed', error.final);
        continue;
      }
      const attempts = message.attempts + 1;
      if (attempts >= this.settings.maxAttempts) {
        this.logger.warn(`${this.name}: gave up on ${message.id} after ${attempts} attempts (${error})`);
        await this.outbox.done(this.target.key, message.id);
        told('failed', error);
        continue;
      }
      told('retrying', error);
      const delay = backoffDelay(attempts, this.settings);
      this.logger.debug(`${this.name}: ${message.id} failed (${error}); retrying in ${delay} ms`);
      await this.outbox.retryLater(this.target.key, message.id, Date.now() + delay, attempts);
      await this.giveBack(batch.slice(i + 1));
      this.backoffUntil = Date.now() + delay;
      await this.sleep(delay);
      return;
    }
  }

  private async giveBack(messages: OutboxMessage[]): Promise<void> {
    const now = Date.now();
    await Promise.all(messages.map((m) => this.outbox.retryLater(this.target.key, m.id, now, m.attempts)));
  }

  /** Sleeps `ms`, or until a new message arrives (outside a backoff) or the sender closes. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.wake = done;
    });
  }

  /**
   * One attempt: undefined when the target answered 2xx, else what went wrong (`final`: retrying cannot help).
   * Redirects are never followed: a 307 or 308 would re-POST the signed message wherever the target points,
   * internal addresses included (the platforms' webhook senders refuse them too).
   */
  private async post(message: OutboxMessage): Promise<string | { final: string } | undefined> {
    // Signed when sent: the timestamp is the attempt's (receivers refuse old ones), the id the message's own.
    const timestamp = Math.floor(Date.now() / 1000);
    try {
      const refused = await this.target.check?.();
      if (refused !== undefined) return { final: refused };
      const res = await fetch(this.target.url, {
        method: 'POST',
        headers: {
          ...this.target.headers,
          'content-type': 'application/json',
          'webhook-id': message.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': this.target.sign(message.id, timestamp, message.body),
        },
        body: message.body,
        redirect: 'manual',
        signal: AbortSignal.any([this.controller.signal, AbortSignal.timeout(this.settings.timeoutMs)]),
      });
      await res.body?.cancel();
      if (res.status >= 300 && res.status < 400)
        return {
          final: `the target answered HTTP ${res.status} redirecting to ${shownLocation(res.headers.get('location'), this.target.url)}; redirects are not followed (the signed message would go elsewhere): set the notify URL to the final address`,
        };
      return res.ok ? undefined : `HTTP ${res.status}`;
    } catch (err) {
      return (err as Error).name === 'TimeoutError' ? `no answer within ${this.settings.timeoutMs} ms` : (err as Error).message;
    }
  }
}

/** A redirect's Location for the log: resolved against the target, without query or fragment (they may hold a token). */
function shownLocation(location: string | null, base: string): string {
  if (!location) return 'no Location';
  try {
    const url = new URL(location, base);
    return `${url.origin}${url.pathname}`;
  } catch {
    return 'an unreadable Location';
  }
}
