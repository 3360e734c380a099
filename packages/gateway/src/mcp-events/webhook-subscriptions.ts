// `events/subscribe` and `events/unsubscribe` of webhook delivery: a client asks for an event type's events to be
// POSTed to its callback URL for a while (`ttl`), gets the subscription's id and its Standard Webhooks secret, and
// extends the while by subscribing again with the id (the same secret comes back). The callback is checked (https,
// public addresses: callback-url.ts) and must echo a challenge (callback-verification.ts) before it is kept.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'winston';
import { EVENTS_ERRORS, EventsError, invalidParams } from './events-errors';
import type { EventType } from './event-types';
import { parseCallbackUrl, type CallbackPolicy } from './callback-url';
import { verifyCallback } from './callback-verification';
import type { McpClient } from './mcp-clients';
import type { WebhookBook, WebhookSubscription } from './webhook-book';
import type { WebhookDeliveries } from './webhook-deliveries';

export const DEFAULT_TTL_SECONDS = 3600;
export const MIN_TTL_SECONDS = 60;
export const MAX_TTL_SECONDS = 86_400;

export interface SubscribeResult {
  resultType: 'complete';
  subscriptionId: string;
  secret: string;
  /** When the subscription ends unless refreshed (ISO 8601). */
  expiresAt: string;
  /** The seconds granted (the asked ttl within MIN_TTL_SECONDS..MAX_TTL_SECONDS). */
  ttl: number;
}

export interface WebhookSubscriptionsDeps {
  logger: Logger;
  book: WebhookBook;
  deliveries: WebhookDeliveries;
  policy: CallbackPolicy;
  maxPerClient: number;
  /** The type and compiled-checked filter of a subscribe's params, as for a poll (throws NotFound, InvalidParams). */
  typeOf(client: McpClient, params: Record<string, unknown>): EventType;
  now?: () => number;
}

const subscriptionNotFound = (id: string): EventsError => new EventsError(EVENTS_ERRORS.NotFound, `no subscription '${id}'`, { kind: 'subscription' });

function ttlOf(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_TTL_SECONDS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw invalidParams('ttl: a positive number of seconds');
  return Math.min(MAX_TTL_SECONDS, Math.max(MIN_TTL_SECONDS, Math.round(value)));
}

export class WebhookSubscriptions {
  private readonly now: () => number;

  constructor(private readonly deps: WebhookSubscriptionsDeps) {
    this.now = deps.now ?? Date.now;
  }

  async subscribe(client: McpClient, params: Record<string, unknown>): Promise<SubscribeResult> {
    const type = this.deps.typeOf(client, params);
    const delivery = params.delivery;
    if (delivery === null || typeof delivery !== 'object' || Array.isArray(delivery)) throw invalidParams('delivery: {mode: "webhook", url}');
    const { mode, url: rawUrl } = delivery as { mode?: unknown; url?: unknown };
    if (mode !== 'webhook')
      throw new EventsError(EVENTS_ERRORS.Unsupported, 'events/subscribe delivers by webhook only: use events/poll or events/stream for the others', {
        feature: 'deliveryMode',
        value: typeof mode === 'string' ? mode : null,
      });
    const url = parseCallbackUrl(rawUrl, this.deps.policy);
    if (typeof url === 'string') throw invalidParams(url);
    const ttl = ttlOf(params.ttl);
    const filter = (params.arguments as { filter?: unknown } | undefined)?.filter;
    const id = params.subscriptionId;
    let subscription: WebhookSubscription;
    if (id !== undefined && id !== null) {
      if (typeof id !== 'string') throw invalidParams('subscriptionId: the id an earlier events/subscribe answered');
      const known = await this.deps.book.get(id);
      // Another client's subscription is answered like one that does not exist.
      if (!known || known.client !== client.name) throw subscriptionNotFound(id);
      if (known.name !== type.name) throw invalidParams(`name: subscription '${id}' is for '${known.name}'; subscribe anew for another event type`);
      if (known.url !== url.href) await this.verify(url, id, known.secret);
      subscription = { ...known, url: url.href, filter, expiresAt: this.now() + ttl * 1000 };
    } else {
      const held = (await this.deps.book.all()).filter((s) => s.client === client.name).length;
      if (held >= this.deps.maxPerClient)
        throw new EventsError(
          EVENTS_ERRORS.Forbidden,
          `this client holds ${held} subscriptions, the most it may (mcp.webhooks.max_per_client); unsubscribe one first`,
        );
      const fresh = `sub_${randomBytes(16).toString('hex')}`;
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      await this.verify(url, fresh, secret);
      const now = this.now();
      subscription = { id: fresh, client: client.name, name: type.name, filter, url: url.href, secret, createdAt: now, expiresAt: now + ttl * 1000 };
    }
    await this.deps.book.put(subscription);
    this.deps.deliveries.adopt(subscription);
    // The callback's origin and path only: a query may carry the subscriber's own key.
    const shown = `${url.origin}${url.pathname}`;
    this.deps.logger.info(
      `MCP client '${client.name}' ${id ? 'refreshed' : 'subscribed to'} '${type.name}' by webhook (subscription ${subscription.id}, callback ${shown}, until ${new Date(subscription.expiresAt).toISOString()})`,
    );
    return {
      resultType: 'complete',
      subscriptionId: subscription.id,
      secret: subscription.secret,
      expiresAt: new Date(subscription.expiresAt).toISOString(),
      ttl,
    };
  }

  async unsubscribe(client: McpClient, params: Record<string, unknown>): Promise<{ resultType: 'complete' }> {
    const id = params.subscriptionId;
    if (typeof id !== 'string' || id === '') throw invalidParams('subscriptionId: the id events/subscribe answered');
    const known = await this.deps.book.get(id);
    if (!known || known.client !== client.name) throw subscriptionNotFound(id);
    await this.deps.book.remove(id);
    await this.deps.deliveries.drop(id);
    return { resultType: 'complete' };
  }

  private async verify(url: URL, id: string, secret: string): Promise<void> {
    const problem = await verifyCallback(url, id, secret, this.deps.policy);
    if (problem) throw new EventsError(EVENTS_ERRORS.InvalidParams, `delivery.url: ${problem}`, { reason: 'verification' });
  }
}
