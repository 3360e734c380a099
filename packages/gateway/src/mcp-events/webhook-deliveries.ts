// Webhook delivery to MCP Events subscribers: each event a route accepts is matched against the live subscriptions
// (type, the client's grant as it is now, the subscriber's filter) and written to the subscription's outbox in the
// store; the outbox sender of lifecycle webhooks posts it, signed in the Standard Webhooks format with the
// subscription's secret, retried with the gateway's retry policy, never following a redirect, the callback's
// address checked before every attempt. Ingest never waits for any of it. The subscriptions are read from the store
// every few seconds, so one made on another gateway sharing the store gets the events this gateway accepts.
import type { Logger } from 'winston';
import { errorMessage, type JobQueue, type Outbox } from '@hookwise/core';
import type { RetryPolicy } from '../config/retry-policy';
import type { AcceptedEvent, Lifecycle } from '../observe/lifecycle';
import { notifyKey, notifySignature, shownUrl as shownCallback } from '../observe/lifecycle-webhooks';
import { OutboxSender, type SendReport } from '../observe/lifecycle-webhooks-sender';
import type { RouteTable } from '../routes/routes';
import { callbackReachProblem, type CallbackPolicy } from './callback-url';
import { SUBSCRIPTION_ID_HEADER } from './callback-verification';
import { encodeCursor } from './event-cursor';
import { isTypeEvent, partsOfTypeName } from './event-types';
import type { EventData } from './event-data';
import type { McpClients } from './mcp-clients';
import { subscriberFilter } from './subscriber-filter';
import type { WebhookBook, WebhookSubscription } from './webhook-book';
import type { PostedEvent } from './webhook-replay';

export interface WebhookDeliveriesDeps {
  book: WebhookBook;
  outbox: Outbox;
  jobs: JobQueue;
  routes: RouteTable;
  clients: McpClients;
  lifecycle: Lifecycle;
  logger: Logger;
  retry: RetryPolicy;
  policy: CallbackPolicy;
  /** What of a job leaves: private fields out, secrets scrubbed; the filter tests that. */
  data: EventData;
  /** How often the subscriptions are read from the store (default 5 s). */
  refreshMs?: number;
  now?: () => number;
}

interface Live {
  subscription: WebhookSubscription;
  sender: OutboxSender;
}

const outboxKey = (id: string) => `mcp-webhook:${id}`;

export class WebhookDeliveries {
  private readonly live = new Map<string, Live>();
  private stopListening: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly deps: WebhookDeliveriesDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Reads the subscriptions (what an earlier run left in their outboxes is sent) and starts listening. */
  async start(): Promise<void> {
    this.stopListening = this.deps.lifecycle.on('accepted', (event) => this.accepted(event));
    await this.refresh();
    const tick = () => {
      this.timer = setTimeout(() => void this.refresh().finally(() => !this.closed && tick()), this.deps.refreshMs ?? 5000);
      this.timer.unref();
    };
    tick();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopListening?.();
    if (this.timer) clearTimeout(this.timer);
    await this.refreshing;
    await Promise.all([...this.live.values()].map((live) => live.sender.close()));
    this.live.clear();
  }

  /** Takes a subscription made or refreshed in this process at once (others come with the next read). */
  adopt(subscription: WebhookSubscription): void {
    if (this.closed) return;
    const known = this.live.get(subscription.id);
    if (known && known.subscription.url === subscription.url && known.subscription.secret === subscription.secret) {
      known.subscription = subscription;
      return;
    }
    if (known) void known.sender.close();
    this.open(subscription);
  }

  /** Queues events for a live subscription (a replay), oldest first, ahead of the live ones that follow. */
  send(id: string, events: readonly PostedEvent[]): void {
    const sender = this.live.get(id)?.sender;
    if (sender) for (const event of events) sender.push(JSON.stringify(event));
  }

  /** Stops delivering to a subscription and drops what waits in its outbox. */
  async drop(id: string): Promise<void> {
    const known = this.live.get(id);
    this.live.delete(id);
    if (known) await known.sender.close();
    await this.drain(id);
  }

  /** Reads the store's subscriptions and makes the senders match them. */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const current = await this.deps.book.all();
        const ids = new Set(current.map((s) => s.id));
        for (const subscription of current) if (!this.closed && this.granted(subscription)) this.adopt(subscription);
        for (const [id, live] of this.live) {
          if (ids.has(id) && live.subscription.expiresAt > this.now() && this.granted(live.subscription)) continue;
          // What waits in its outbox goes too: a client that lost the type's grant gets none of it.
          this.deps.logger.info(
            `MCP subscription ${id} of ${live.subscription.client} ended (expired, unsubscribed, or the client is no longer granted '${live.subscription.name}'); its deliveries stop`,
          );
          await this.drop(id);
        }
      } catch (err) {
        this.deps.logger.warn(`MCP webhook subscriptions could not be read from the store (${errorMessage(err)}); trying again`);
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  private open(subscription: WebhookSubscription): void {
    const key = notifyKey(subscription.secret);
    if (!key) return;
    const url = new URL(subscription.url);
    const { retry, policy } = this.deps;
    const sender = new OutboxSender(
      {
        key: outboxKey(subscription.id),
        url: subscription.url,
        shown: shownCallback(subscription.url),
        label: `MCP subscription ${subscription.id} (${subscription.client}, ${shownCallback(subscription.url)})`,
        headers: { [SUBSCRIPTION_ID_HEADER]: subscription.id },
        check: () => callbackReachProblem(url, policy),
        sign: (id, ts, body) => notifySignature(key, id, ts, body),
      },
      this.deps.outbox,
      { maxQueue: 1000, maxAttempts: retry.maxAttempts, baseDelayMs: retry.baseDelayMs, maxDelayMs: retry.maxDelayMs, timeoutMs: 10_000, pollMs: 1000 },
      this.deps.logger,
      (report) => this.report(subscription.id, report),
    );
    this.live.set(subscription.id, { subscription, sender });
    sender.start();
  }

  private report(id: string, report: SendReport): void {
    const subscription = this.live.get(id)?.subscription;
    if (!subscription) return;
    if (report.outcome === 'failed')
      this.deps.logger.warn(`MCP subscription ${id} of ${subscription.client}: gave up on an event after ${report.attempts} attempt(s) (${report.error})`);
    if (!this.deps.lifecycle.has('mcp_webhook_delivery')) return;
    this.deps.lifecycle.emit('mcp_webhook_delivery', {
      subscription: id,
      client: subscription.client,
      name: subscription.name,
      webhookId: report.messageId,
      outcome: report.outcome,
      attempts: report.attempts,
      durationMs: report.durationMs,
      ...(report.error !== undefined ? { error: report.error } : {}),
    });
  }

  /** Whether the subscription's client is still granted its type, and the type's route still exists. */
  private granted(subscription: WebhookSubscription): boolean {
    const { route } = partsOfTypeName(subscription.name);
    const client = this.deps.clients.byName(subscription.client);
    return client?.grant.allows({ name: subscription.name, route }) === true && this.deps.routes.get(route) !== undefined;
  }

  /** The subscriptions an accepted event goes to: their type, the client's grant now, not expired. */
  private accepted(event: AcceptedEvent): void {
    const now = this.now();
    for (const { subscription } of this.live.values()) {
      if (subscription.expiresAt <= now) continue;
      const type = partsOfTypeName(subscription.name);
      if (type.route !== event.route || (type.event !== undefined && !isTypeEvent(type.event, event.event))) continue;
      if (!this.granted(subscription)) continue;
      void this.enqueue(subscription, event).catch((err: unknown) =>
        this.deps.logger.warn(`MCP subscription ${subscription.id}: an event could not be queued for delivery (${errorMessage(err)})`),
      );
    }
  }

  private async enqueue(subscription: WebhookSubscription, event: AcceptedEvent): Promise<void> {
    const job = await this.deps.jobs.get(event.jobId);
    if (!job) return;
    const occurrence = this.deps.data.occurrenceOf(job, subscription.name, this.deps.routes.get(job.route));
    if (!(await this.deps.data.passes(subscriberFilter(subscription.filter), occurrence, job))) return;
    const body = JSON.stringify({ ...occurrence, cursor: encodeCursor({ t: job.receivedAt, id: job.id }) });
    this.live.get(subscription.id)?.sender.push(body);
  }

  /** Removes what waits in a gone subscription's outbox. */
  private async drain(id: string): Promise<void> {
    for (;;) {
      const batch = await this.deps.outbox.due(outboxKey(id), 100, 5000);
      if (!batch.length) return;
      await Promise.all(batch.map((message) => this.deps.outbox.done(outboxKey(id), message.id)));
    }
  }
}
