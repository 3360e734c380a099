// Outbound lifecycle webhooks (`notify:` in config.yaml): each target gets the lifecycle events it chose as JSON
// POSTs signed in the Standard Webhooks format, so that any Standard Webhooks library verifies them. The listener
// only hands the message to the target's sender (the lifecycle emitter is synchronous and on the hot path), which
// keeps it in the store's outbox until it is sent (lifecycle-webhooks-sender.ts): on SQLite and Redis a stop or
// crash loses nothing, and gateways sharing a store send each message once. A store without an outbox: this
// process's memory, as the memory store. Messages carry the event's facts (route, delivery id, job id, outcome,
// error text as stored), never request headers or payload text; each leaves through the gateway's one exit for
// text (outbound-scrub.ts) before it is kept or posted.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Logger } from 'winston';
import type { Outbox } from '@hookwise/core';
import type { NotifyTarget } from '../config/notify-schema';
import { MemoryOutbox } from '../stores/memory-outbox';
import type { Lifecycle, LifecycleEventName } from './lifecycle';
import { OutboxSender, type SenderSettings } from './lifecycle-webhooks-sender';
import type { OutboundScrubber } from './outbound-scrub';

export type LifecycleWebhooksOptions = Partial<SenderSettings> & {
  /** The gateway's one exit for text: every message's facts pass it before they are kept in the outbox. */
  outbound?: Pick<OutboundScrubber, 'scrubValue'>;
  /** The profile of the gateway, named in every message: one receiver may get the events of several profiles. */
  profile?: string;
};

const DEFAULTS: SenderSettings = { maxQueue: 1000, maxAttempts: 8, baseDelayMs: 1000, maxDelayMs: 60_000, timeoutMs: 10_000, pollMs: 1000 };

/**
 * A target's outbox key: a hash of its URL (a query may hold a token, and store keys are seen by operators), so a
 * message kept for a target is still sent after a restart with another secret or events list. The nth entry with
 * the same URL gets its own outbox (`#n`).
 */
export function notifyOutboxKey(url: string, nth = 0): string {
  const key = `notify:${createHash('sha256').update(url).digest('hex').slice(0, 32)}`;
  return nth ? `${key}#${nth}` : key;
}

/**
 * The key a Standard Webhooks secret stands for: `whsec_<base64>`, or bare base64 (what the libraries accept).
 * The base64 must be whole (Buffer ignores what it cannot read, while a receiver's library refuses it).
 */
export function notifyKey(secret: string): Buffer | undefined {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  if (key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) return undefined;
  return key.length >= 16 ? key : undefined;
}

/** A new Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
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
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

/** Listens to the chosen lifecycle events and posts them to their targets; `start()` sends, `close()` stops it. */
export class LifecycleWebhooks {
  private readonly senders: OutboxSender[] = [];
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    targets: readonly NotifyTarget[],
    lifecycle: Lifecycle,
    logger: Logger,
    outbox: Outbox = new MemoryOutbox(),
    options: LifecycleWebhooksOptions = {},
  ) {
    const { outbound, profile, ...tuning } = options;
    const settings = { ...DEFAULTS, ...tuning };
    const byEvent = new Map<LifecycleEventName, OutboxSender[]>();
    const seen = new Map<string, number>();
    for (const target of targets) {
      const key = notifyKey(target.secret);
      if (!key) continue; // notifyProblems refuses it at startup
      const nth = seen.get(target.url) ?? 0;
      seen.set(target.url, nth + 1);
      const sender = new OutboxSender(
        { key: notifyOutboxKey(target.url, nth), url: target.url, shown: shownUrl(target.url), sign: (id, ts, body) => notifySignature(key, id, ts, body) },
        outbox,
        settings,
        logger,
      );
      this.senders.push(sender);
      for (const name of new Set(target.events)) byEvent.set(name, [...(byEvent.get(name) ?? []), sender]);
    }
    for (const [name, senders] of byEvent) {
      this.unsubscribe.push(
        lifecycle.on(name, (event) => {
          const data = outbound ? outbound.scrubValue('lifecycle-webhook', messageData(event)) : messageData(event);
          const body = JSON.stringify({ type: `hookwise.${name}`, timestamp: new Date().toISOString(), profile, data });
          for (const sender of senders) sender.push(body);
        }),
      );
    }
  }

  /** Starts sending, what an earlier run left in the outbox included; called once the gateway has started. */
  start(): void {
    for (const sender of this.senders) sender.start();
  }

  /** Stops listening, waits for the messages being written, and stops the senders: call it before the store closes. */
  async close(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
    await Promise.all(this.senders.map((sender) => sender.close()));
  }
}
