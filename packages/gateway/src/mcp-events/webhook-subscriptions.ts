// `events/subscribe` and `events/unsubscribe` of webhook delivery: a client asks for an event type's events to be
// POSTed to its callback URL for a while (`ttl` seconds or `ttlMs`), gets the subscription's id, its Standard
// Webhooks secret and its expiry, and extends the while by subscribing again. Two readings of the Events design are
// served alike (subscribe-params.ts): the server makes the secret and the client refreshes and unsubscribes with
// the `subscriptionId`; or the client chooses the secret (`delivery.secret`) and a subscribe with the same key
// (client, name, arguments, callback URL) refreshes what it holds (soft state: the client is the source of truth),
// an unsubscribe with that key ends it. The callback is checked (https, public addresses: callback-url.ts) and must
// echo a challenge signed with the secret (callback-verification.ts) before it is kept, and again when the URL or
// the secret changes. A subscribe with a `cursor` is first sent what the client missed since (webhook-replay.ts).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'winston';
import { newWebhookSecret } from '../observe/lifecycle-webhooks';
import { EVENTS_ERRORS, EventsError, invalidParams } from './events-errors';
import type { EventType } from './event-types';
import { parseCallbackUrl, type CallbackPolicy } from './callback-url';
import { verifyCallback } from './callback-verification';
import type { McpClient } from './mcp-clients';
import { canonicalJson, clientSecret, grantedTtlMs, keyUrl } from './subscribe-params';
import type { WebhookBook, WebhookSubscription } from './webhook-book';
import type { WebhookDeliveries } from './webhook-deliveries';
import type { Replay } from './webhook-replay';

export { DEFAULT_TTL_SECONDS, MIN_TTL_SECONDS, MAX_TTL_SECONDS } from './subscribe-params';

export interface SubscribeResult {
  resultType: 'complete';
  subscriptionId: string;
  secret: string;
  /** When the subscription ends unless refreshed (ISO 8601). */
  expiresAt: string;
  /** The seconds granted (the asked ttl or ttlMs within MIN_TTL_SECONDS..MAX_TTL_SECONDS). */
  ttl: number;
  /** The design sketch's names of the same: `id` is subscriptionId, `refreshBefore` is expiresAt. */
  id: string;
  refreshBefore: string;
  /**
   * Where live deliveries start: the store's position of now, or with a `cursor` asked, where its replay ended (an
   * events/poll from it reads what follows).
   */
  cursor: string;
  /** The asked cursor was older than what the store keeps, or more than MAX_REPLAYED events were waiting. */
  truncated: boolean;
}

export interface WebhookSubscriptionsDeps {
  logger: Logger;
  book: WebhookBook;
  deliveries: WebhookDeliveries;
  policy: CallbackPolicy;
  maxPerClient: number;
  /** The type and compiled-checked filter of a subscribe's params, as for a poll (throws NotFound, InvalidParams). */
  typeOf(client: McpClient, params: Record<string, unknown>): EventType;
  /** The cursor of the store's present position, as an events/poll without a cursor starts from. */
  cursorNow(): string;
  /** A subscribe's replay from its `cursor` (checked at once: throws InvalidParams), run once the subscription is live; undefined without a cursor. */
  replay(client: McpClient, params: Record<string, unknown>): (() => Promise<Replay>) | undefined;
  now?: () => number;
}

const subscriptionNotFound = (id: string): EventsError => new EventsError(EVENTS_ERRORS.NotFound, `no subscription '${id}'`, { kind: 'subscription' });
const filterOf = (params: Record<string, unknown>): unknown => (params.arguments as { filter?: unknown } | undefined)?.filter;

export class WebhookSubscriptions {
  private readonly now: () => number;
  /** The last subscribe of each key in flight (see subscribe). */
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: WebhookSubscriptionsDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * Subscribes of one client for one key (or one subscription id) run one after another in this gateway, so that
   * two at the same instant refresh one subscription rather than make two.
   */
  subscribe(client: McpClient, params: Record<string, unknown>): Promise<SubscribeResult> {
    const delivery = params.delivery as { url?: unknown } | null | undefined;
    const key = canonicalJson([client.name, params.subscriptionId ?? null, params.name ?? null, filterOf(params) ?? null, delivery?.url ?? null]);
    const previous = this.pending.get(key) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this.subscribeNow(client, params));
    const settled = run.catch(() => undefined);
    this.pending.set(key, settled);
    void settled.then(() => this.pending.get(key) === settled && this.pending.delete(key));
    return run;
  }

  private async subscribeNow(client: McpClient, params: Record<string, unknown>): Promise<SubscribeResult> {
    const type = this.deps.typeOf(client, params);
    const delivery = params.delivery;
    if (delivery === null || typeof delivery !== 'object' || Array.isArray(delivery)) throw invalidParams('delivery: {mode: "webhook", url, secret?}');
    const { mode, url: rawUrl } = delivery as { mode?: unknown; url?: unknown };
    if (mode !== 'webhook')
      throw new EventsError(EVENTS_ERRORS.Unsupported, 'events/subscribe delivers by webhook only: use events/poll or events/stream for the others', {
        feature: 'deliveryMode',
        value: typeof mode === 'string' ? mode : null,
      });
    const url = parseCallbackUrl(rawUrl, this.deps.policy);
    if (typeof url === 'string') throw invalidParams(url);
    const chosen = clientSecret(delivery as Record<string, unknown>);
    const ttlMs = grantedTtlMs(params);
    const filter = filterOf(params);
    const replay = this.deps.replay(client, params);
    const id = params.subscriptionId;
    let known: WebhookSubscription | undefined;
    if (id !== undefined && id !== null) {
      if (typeof id !== 'string') throw invalidParams('subscriptionId: the id an earlier events/subscribe answered');
      known = await this.deps.book.get(id);
      // Another client's subscription is answered like one that does not exist.
      if (!known || known.client !== client.name) throw subscriptionNotFound(id);
      if (known.name !== type.name) throw invalidParams(`name: subscription '${id}' is for '${known.name}'; subscribe anew for another event type`);
    } else {
      known = await this.byKey(client, type.name, filter, url.href);
    }
    let subscription: WebhookSubscription;
    if (known) {
      const secret = chosen ?? known.secret;
      if (known.url !== url.href || secret !== known.secret) await this.verify(url, known.id, secret);
      subscription = { ...known, url: url.href, filter, secret, expiresAt: this.now() + ttlMs };
    } else {
      const held = (await this.deps.book.all()).filter((s) => s.client === client.name).length;
      if (held >= this.deps.maxPerClient)
        throw new EventsError(
          EVENTS_ERRORS.Forbidden,
          `this client holds ${held} subscriptions, the most it may (mcp.webhooks.max_per_client); unsubscribe one first`,
        );
      const fresh = `sub_${randomBytes(16).toString('hex')}`;
      const secret = chosen ?? newWebhookSecret();
      await this.verify(url, fresh, secret);
      const now = this.now();
      subscription = { id: fresh, client: client.name, name: type.name, filter, url: url.href, secret, createdAt: now, expiresAt: now + ttlMs };
    }
    await this.deps.book.put(subscription);
    this.deps.deliveries.adopt(subscription);
    // What the client missed since its cursor goes out before the live events that follow it.
    const replayed = replay ? await replay() : undefined;
    if (replayed) this.deps.deliveries.send(subscription.id, replayed.events);
    // The callback's origin and path only: a query may carry the subscriber's own key. Never the secret.
    const shown = `${url.origin}${url.pathname}`;
    const expiresAt = new Date(subscription.expiresAt).toISOString();
    this.deps.logger.info(
      `MCP client '${client.name}' ${known ? 'refreshed' : 'subscribed to'} '${type.name}' by webhook (subscription ${subscription.id}, callback ${shown}, until ${expiresAt})`,
    );
    return {
      resultType: 'complete',
      subscriptionId: subscription.id,
      secret: subscription.secret,
      expiresAt,
      ttl: Math.round(ttlMs / 1000),
      id: subscription.id,
      refreshBefore: expiresAt,
      cursor: replayed?.cursor ?? this.deps.cursorNow(),
      truncated: replayed?.truncated ?? false,
    };
  }

  /** Ends a subscription named by its `subscriptionId`, or by its key `{name, arguments, delivery: {url}}`. */
  async unsubscribe(client: McpClient, params: Record<string, unknown>): Promise<{ resultType: 'complete' }> {
    const id = params.subscriptionId;
    let known: WebhookSubscription | undefined;
    if (id === undefined || id === null) {
      if (params.name === undefined) throw invalidParams('subscriptionId: the id events/subscribe answered (or name, arguments and delivery.url)');
      const type = this.deps.typeOf(client, params);
      const url = keyUrl(params.delivery);
      if (url === undefined) throw invalidParams('delivery.url: the callback URL the subscription was made with');
      known = await this.byKey(client, type.name, filterOf(params), url);
      if (!known) throw new EventsError(EVENTS_ERRORS.NotFound, `no subscription to '${type.name}' for that callback and arguments`, { kind: 'subscription' });
    } else {
      if (typeof id !== 'string' || id === '') throw invalidParams('subscriptionId: the id events/subscribe answered');
      known = await this.deps.book.get(id);
      if (!known || known.client !== client.name) throw subscriptionNotFound(id);
    }
    await this.deps.book.remove(known.id);
    await this.deps.deliveries.drop(known.id);
    return { resultType: 'complete' };
  }

  /** The client's live subscription with this key (event type, filter, callback URL), if any. */
  private async byKey(client: McpClient, name: string, filter: unknown, url: string): Promise<WebhookSubscription | undefined> {
    const key = canonicalJson(filter);
    return (await this.deps.book.all()).find((s) => s.client === client.name && s.name === name && s.url === url && canonicalJson(s.filter) === key);
  }

  private async verify(url: URL, id: string, secret: string): Promise<void> {
    const problem = await verifyCallback(url, id, secret, this.deps.policy);
    if (problem) throw new EventsError(EVENTS_ERRORS.InvalidParams, `delivery.url: ${problem}`, { reason: 'verification' });
  }
}
