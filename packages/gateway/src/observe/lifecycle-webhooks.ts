// Outbound lifecycle webhooks (`notify:` in config.yaml): each target gets the lifecycle events it chose as JSON
// POSTs signed in the Standard Webhooks format, so that any Standard Webhooks library verifies them. The listener
// only queues (the lifecycle emitter is synchronous and on the hot path); one sender per target posts in order,
// retries with exponential backoff, and drops the oldest message when its bounded queue is full. Messages carry
// the event's facts (route, delivery id, job id, outcome, error text as stored), never request headers or
// payload text. They live in memory: a restart loses what was not sent yet.
import { createHmac, randomUUID } from 'node:crypto';
import type { Logger } from 'winston';
import type { NotifyTarget } from '../config/notify-schema';
import type { Lifecycle, LifecycleEventName } from './lifecycle';

export interface LifecycleWebhooksOptions {
  /** Messages waiting per target; beyond it the oldest is dropped (with a warning). */
  maxQueue?: number;
  /** Attempts per message before it is dropped (with a warning). */
  maxAttempts?: number;
  /** Delay before the first retry, doubled each time up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** One POST's time limit. */
  timeoutMs?: number;
}

const DEFAULTS: Required<LifecycleWebhooksOptions> = { maxQueue: 1000, maxAttempts: 8, baseDelayMs: 1000, maxDelayMs: 60_000, timeoutMs: 10_000 };

/** The key a Standard Webhooks secret stands for: `whsec_<base64>`, or bare base64 (what the libraries accept). */
export function notifyKey(secret: string): Buffer | undefined {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= 16 ? key : undefined;
}

/** Problems of a `notify:` list, for startup (never showing a secret). */
export function notifyProblems(targets: readonly NotifyTarget[] | undefined): string[] {
  const problems: string[] = [];
  (targets ?? []).forEach((target, i) => {
    if (!notifyKey(target.secret))
      problems.push(
        `notify[${i}].secret is not a Standard Webhooks secret: use whsec_ followed by at least 16 bytes in base64, e.g. whsec_$(openssl rand -base64 32)`,
      );
    try {
      new URL(target.url);
    } catch {
      problems.push(`notify[${i}].url is not a URL: write it as https://host/path`);
    }
  });
  return problems;
}

/** `v1,<base64>` of HMAC-SHA256 over `<id>.<timestamp>.<body>` (the scheme of @hookwise/kit's standard-webhooks.ts). */
export function notifySignature(key: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** What of a lifecycle event leaves the process: everything but the request's headers. */
function messageData(event: object): Record<string, unknown> {
  const { headers: _headers, ...facts } = event as Record<string, unknown>;
  return facts;
}

/** Where a target is, for log lines: origin and path (a query may hold a token). */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

interface Message {
  id: string;
  body: string;
  attempts: number;
}

/** One target's queue and its sender. */
class TargetSender {
  private readonly queue: Message[] = [];
  private sending = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private dropped = 0;
  private readonly controller = new AbortController();

  constructor(
    private readonly url: string,
    private readonly key: Buffer,
    private readonly options: Required<LifecycleWebhooksOptions>,
    private readonly logger: Logger,
  ) {}

  push(body: string): void {
    if (this.closed) return;
    if (this.queue.length >= this.options.maxQueue) {
      this.queue.shift();
      // One warning per burst of drops, not one per message.
      if (this.dropped++ === 0) this.logger.warn(`notify ${shownUrl(this.url)}: queue full (${this.options.maxQueue}); dropping the oldest events`);
    }
    this.queue.push({ id: `msg_${randomUUID()}`, body, attempts: 0 });
    if (!this.sending && !this.timer) void this.pump();
  }

  private async pump(): Promise<void> {
    this.sending = true;
    try {
      while (!this.closed && this.queue.length) {
        const message = this.queue[0];
        const error = await this.post(message);
        if (this.closed) return;
        if (error === undefined) {
          this.queue.shift();
          this.dropped = 0;
          continue;
        }
        message.attempts += 1;
        if (message.attempts >= this.options.maxAttempts) {
          this.queue.shift();
          this.logger.warn(`notify ${shownUrl(this.url)}: gave up on ${message.id} after ${message.attempts} attempts (${error})`);
          continue;
        }
        const delay = Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (message.attempts - 1));
        this.logger.debug(`notify ${shownUrl(this.url)}: ${message.id} failed (${error}); retrying in ${delay} ms`);
        this.timer = setTimeout(() => {
          this.timer = undefined;
          void this.pump();
        }, delay);
        this.timer.unref();
        return;
      }
    } finally {
      this.sending = false;
    }
  }

  /** One attempt: undefined when the target answered 2xx, else what went wrong. */
  private async post(message: Message): Promise<string | undefined> {
    const timestamp = Math.floor(Date.now() / 1000);
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': message.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': notifySignature(this.key, message.id, timestamp, message.body),
        },
        body: message.body,
        signal: AbortSignal.any([this.controller.signal, AbortSignal.timeout(this.options.timeoutMs)]),
      });
      await res.body?.cancel();
      return res.ok ? undefined : `HTTP ${res.status}`;
    } catch (err) {
      return (err as Error).name === 'TimeoutError' ? `no answer within ${this.options.timeoutMs} ms` : (err as Error).message;
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.controller.abort();
  }
}

/** Listens to the chosen lifecycle events and posts them to their targets; `close()` stops it. */
export class LifecycleWebhooks {
  private readonly senders: TargetSender[] = [];
  private readonly unsubscribe: Array<() => void> = [];

  constructor(targets: readonly NotifyTarget[], lifecycle: Lifecycle, logger: Logger, options: LifecycleWebhooksOptions = {}) {
    const settings = { ...DEFAULTS, ...options };
    const byEvent = new Map<LifecycleEventName, TargetSender[]>();
    for (const target of targets) {
      const key = notifyKey(target.secret);
      if (!key) continue; // notifyProblems refuses it at startup
      const sender = new TargetSender(target.url, key, settings, logger);
      this.senders.push(sender);
      for (const name of new Set(target.events)) byEvent.set(name, [...(byEvent.get(name) ?? []), sender]);
    }
    for (const [name, senders] of byEvent) {
      this.unsubscribe.push(
        lifecycle.on(name, (event) => {
          const body = JSON.stringify({ type: `hookwise.${name}`, timestamp: new Date().toISOString(), data: messageData(event) });
          for (const sender of senders) sender.push(body);
        }),
      );
    }
  }

  close(): void {
    for (const off of this.unsubscribe.splice(0)) off();
    for (const sender of this.senders) sender.close();
  }
}
