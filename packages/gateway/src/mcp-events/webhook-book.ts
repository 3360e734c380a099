// The MCP Events webhook subscriptions, kept in the store's memos so that they outlive a restart on a durable store
// and are seen by every gateway sharing it: one memo per subscription (forgotten by the store once it expired) and
// one index of their ids, since a memo space cannot be listed. The index is read, changed and written back: two
// gateways subscribing in the same instant may lose one id from it, which `remember` puts back on the next refresh.
import type { MemoKV } from '@hookwise/core';

export interface WebhookSubscription {
  /** `sub_<random>`: the subscription id the client refreshes and unsubscribes with. */
  id: string;
  /** The mcp.clients name that holds it. */
  client: string;
  /** The event type. */
  name: string;
  /** `arguments.filter` as the client gave it (compiled again where it is used). */
  filter?: unknown;
  url: string;
  /** `whsec_<base64>`: the Standard Webhooks key the deliveries are signed with. */
  secret: string;
  createdAt: number;
  expiresAt: number;
}

const PREFIX = 'mcp-events:webhook:';
const INDEX = 'mcp-events:webhooks';

function parse(text: string | undefined): WebhookSubscription | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as WebhookSubscription;
    return typeof value.id === 'string' && typeof value.expiresAt === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}

export class WebhookBook {
  constructor(
    private readonly memos: MemoKV,
    private readonly now: () => number = Date.now,
  ) {}

  async get(id: string): Promise<WebhookSubscription | undefined> {
    const found = parse(await this.memos.get(PREFIX + id));
    return found && found.expiresAt > this.now() ? found : undefined;
  }

  /** Writes a subscription (new or refreshed): the store forgets it when it expires. */
  async put(subscription: WebhookSubscription): Promise<void> {
    await this.memos.set(PREFIX + subscription.id, JSON.stringify(subscription), Math.max(1, subscription.expiresAt - this.now()));
    await this.remember([subscription.id]);
  }

  async remove(id: string): Promise<void> {
    await this.memos.delete(PREFIX + id);
    const ids = await this.ids();
    if (ids.includes(id)) await this.memos.set(INDEX, JSON.stringify(ids.filter((known) => known !== id)));
  }

  /** Every subscription not expired; ids whose subscription is gone are dropped from the index. */
  async all(): Promise<WebhookSubscription[]> {
    const ids = await this.ids();
    const found = await Promise.all(ids.map((id) => this.get(id)));
    const live = found.filter((s): s is WebhookSubscription => s !== undefined);
    if (live.length < ids.length) {
      // Written only when something went: read again first, so an id added meanwhile is kept.
      const gone = new Set(ids.filter((_, i) => found[i] === undefined));
      const now = await this.ids();
      await this.memos.set(INDEX, JSON.stringify(now.filter((id) => !gone.has(id))));
    }
    return live.sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Adds ids to the index (a no-op for those in it). */
  async remember(ids: readonly string[]): Promise<void> {
    const known = await this.ids();
    const missing = ids.filter((id) => !known.includes(id));
    if (missing.length) await this.memos.set(INDEX, JSON.stringify([...known, ...missing]));
  }

  private async ids(): Promise<string[]> {
    const text = await this.memos.get(INDEX);
    if (text === undefined) return [];
    try {
      const value = JSON.parse(text) as unknown;
      return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
    } catch {
      return [];
    }
  }
}
