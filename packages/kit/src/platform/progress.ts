// What one delivery has already sent, part by part, so that a retried delivery resumes after the last part
// the platform accepted instead of posting the answer again. Kept behind one small interface: the kit keeps
// it in memory, a store-backed implementation can keep it across restarts.
import type { ProgressKV } from '@hookwise/core';
import { LRUCache } from 'lru-cache';

/** A part the platform reported as already delivered, in the receipt's `alreadyDelivered` list. */
export interface AlreadyDeliveredNote {
  /** 0-based part number. */
  index: number;
  /** What the platform answered (scrubbed). */
  message: string;
}

/** A part that reached some of its recipients but not all, in the receipt's `partial` list. */
export interface PartialNote {
  index: number;
  /** What the platform said about the failed recipients (scrubbed). */
  message: string;
  failed: string[];
}

export interface DeliveryProgress {
  /** One entry per part sent so far, in order: the platform's message id, or '' when it gave none. */
  ids: string[];
  already: AlreadyDeliveredNote[];
  partial: PartialNote[];
}

/**
 * Progress of deliveries by key (platform, route and delivery id: delivery ids are unique per route only).
 * Saved after every part; cleared when the delivery is complete.
 */
export interface ProgressStore {
  load(key: string): Promise<DeliveryProgress | undefined>;
  save(key: string, progress: DeliveryProgress): Promise<void>;
  clear(key: string): Promise<void>;
}

/**
 * The key of one delivery's progress on one destination: route + delivery id + destination (the route's name
 * for it, e.g. `slack` or `slack#2`), under the platform's id. Without a destination, the platform's id is it.
 */
export function progressKey(platformId: string, route: string, deliveryId: string, destination?: string): string {
  return `${platformId}\n${route}\n${deliveryId}${destination === undefined || destination === platformId ? '' : `\n${destination}`}`;
}

const PROGRESS_LIMIT = 1000;
/** A retry comes within the retry schedule (hours at most); older progress is forgotten. */
export const PROGRESS_TTL_MS = 24 * 60 * 60 * 1000;

/** Progress in this process's memory: a restart forgets it (a store-backed ProgressStore does not). */
export class MemoryProgressStore implements ProgressStore {
  private readonly entries = new LRUCache<string, DeliveryProgress>({ max: PROGRESS_LIMIT, ttl: PROGRESS_TTL_MS });

  async load(key: string): Promise<DeliveryProgress | undefined> {
    const found = this.entries.get(key);
    return found && { ids: [...found.ids], already: [...found.already], partial: [...found.partial] };
  }

  async save(key: string, progress: DeliveryProgress): Promise<void> {
    this.entries.set(key, { ids: [...progress.ids], already: [...progress.already], partial: [...progress.partial] });
  }

  async clear(key: string): Promise<void> {
    this.entries.delete(key);
  }
}

/**
 * Progress kept in the gateway's store (PluginContext.progress: SQLite, Redis, memory), so a restart between two
 * parts resumes after the last part the platform accepted. Each part is saved before the next one is sent.
 */
export class KVProgressStore implements ProgressStore {
  constructor(
    private readonly kv: ProgressKV,
    private readonly ttlMs = PROGRESS_TTL_MS,
  ) {}

  async load(key: string): Promise<DeliveryProgress | undefined> {
    const found = (await this.kv.get(`delivery-progress\n${key}`)) as Partial<DeliveryProgress> | undefined;
    if (!found || !Array.isArray(found.ids)) return undefined;
    return { ids: [...found.ids], already: [...(found.already ?? [])], partial: [...(found.partial ?? [])] };
  }

  save(key: string, progress: DeliveryProgress): Promise<void> {
    return this.kv.set(`delivery-progress\n${key}`, progress, this.ttlMs);
  }

  clear(key: string): Promise<void> {
    return this.kv.delete(`delivery-progress\n${key}`);
  }
}
