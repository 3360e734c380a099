// The MCP Events webhook subscriptions, kept in the store's memos so that they outlive a restart on a durable store
// and are seen by every gateway sharing it: one memo per subscription (forgotten by the store once it expired) and
// one index of their ids, since a memo space cannot be listed. The index is changed by a read, an edit and a
// conditional write (MemoKV.compareAndSet), read again when another gateway wrote it meanwhile, so two gateways
// subscribing in the same instant both keep their ids. A book's own changes are applied together, one write at a
// time, so the gateways' writes rarely collide. A third-party store without compareAndSet gets a plain write: a
// gateway still keeps its own changes, but two gateways at the same instant may lose one id from the index, which
// `remember` puts back on the next refresh of that subscription.
import { HookwiseError, type MemoKV } from '@hookwise/core';

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
/** Conditional writes of the index before a change gives up (each lost to another gateway's write). */
export const INDEX_WRITE_ATTEMPTS = 10;
/** The most a book waits before reading the index again after losing a write: a random pause up to it. */
const RETRY_PAUSE_MS = 20;

/** A change of the index: the ids it should hold, given those it holds. */
type IndexEdit = (ids: string[]) => string[];

function parseIds(text: string | undefined): string[] {
  if (text === undefined) return [];
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

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
  /** Index changes waiting for the write under way, and whether one is. */
  private queued: Array<{ edit: IndexEdit; resolve: () => void; reject: (err: unknown) => void }> = [];
  private writing = false;

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
    await this.changeIndex((ids) => ids.filter((known) => known !== id));
  }

  /** Every subscription not expired; ids whose subscription is gone are dropped from the index. */
  async all(): Promise<WebhookSubscription[]> {
    const ids = parseIds(await this.memos.get(INDEX));
    const found = await Promise.all(ids.map((id) => this.get(id)));
    const live = found.filter((s): s is WebhookSubscription => s !== undefined);
    if (live.length < ids.length) {
      // The edit applies to the index as it is when written, so an id added meanwhile is kept. Housekeeping: a
      // prune that keeps losing to other writers is left to the next read.
      const gone = new Set(ids.filter((_, i) => found[i] === undefined));
      await this.changeIndex((now) => now.filter((id) => !gone.has(id))).catch(() => undefined);
    }
    return live.sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Adds ids to the index (a no-op for those in it). */
  async remember(ids: readonly string[]): Promise<void> {
    await this.changeIndex((known) => [...known, ...ids.filter((id) => !known.includes(id))]);
  }

  /** Queues `edit`: the edits queued while a write is under way are applied together by the next one. */
  private changeIndex(edit: IndexEdit): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queued.push({ edit, resolve, reject });
      if (!this.writing) void this.writeQueued();
    });
  }

  private async writeQueued(): Promise<void> {
    this.writing = true;
    while (this.queued.length > 0) {
      const batch = this.queued.splice(0);
      try {
        await this.writeIndex((ids) => batch.reduce((acc, { edit }) => edit(acc), ids));
        for (const { resolve } of batch) resolve();
      } catch (err) {
        for (const { reject } of batch) reject(err);
      }
    }
    this.writing = false;
  }

  /** Reads the index, edits it and writes it back if it changed: conditionally when the store can. */
  private async writeIndex(edit: IndexEdit): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const text = await this.memos.get(INDEX);
      const ids = parseIds(text);
      const next = edit(ids);
      if (next.length === ids.length && next.every((id, i) => id === ids[i])) return;
      if (!this.memos.compareAndSet) return this.memos.set(INDEX, JSON.stringify(next));
      if (await this.memos.compareAndSet(INDEX, text, JSON.stringify(next))) return;
      if (attempt >= INDEX_WRITE_ATTEMPTS)
        throw new HookwiseError(
          'HW_E_STORE',
          `the MCP webhook subscriptions' index changed under each of ${attempt} writes (other gateways writing it); nothing was written, retry later`,
          { retryable: true },
        );
      await new Promise((resolve) => setTimeout(resolve, Math.random() * RETRY_PAUSE_MS));
    }
  }
}
