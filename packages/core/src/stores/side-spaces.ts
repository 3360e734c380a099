// The store's side spaces besides jobs: small key-value spaces (delivery progress, plugins' memos) and the outbox
// of outgoing lifecycle messages. Each is optional on a Store; the gateway falls back to memory without it.

/**
 * A small key-value space for delivery progress (which parts of an answer a platform accepted, idempotency
 * keys): keyed by route + delivery id + destination by its users, kept across restarts by persistent stores.
 * Values are JSON-serialisable; an entry is forgotten after its TTL.
 */
export interface ProgressKV {
  get(key: string): Promise<unknown | undefined>;
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * A small, durable key-value memory that plugins keep across jobs: e.g. the id of a code host's sticky
 * comment, found again by later answers for the same pull request, after a restart, and by every gateway on a
 * shared store. Unlike {@link ProgressKV} (one delivery's parts, forgotten once it is done), an entry lives until
 * it is overwritten, deleted or its optional TTL passes. Values are strings (the caller chooses the encoding);
 * keys are the caller's and shared by every plugin on the store, so each plugin starts its keys with its id.
 */
export interface MemoKV {
  get(key: string): Promise<string | undefined>;
  /** Stores `value` under `key`, replacing what was there; with `ttlMs` it is forgotten that long after this write. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Optional: writes `value` under `key` (with `ttlMs` as in `set`) only if its value is `expected` at that moment,
   * `undefined` meaning no entry (or one whose TTL has passed); returns whether it wrote. Atomic, also for every
   * gateway sharing the store: of calls with the same `expected`, one writes. For a read, change and write back
   * that two gateways must not interleave (e.g. a list of ids in one memo): read, compute, compareAndSet, and read
   * again when it answers false. Without it, callers fall back to `get` and `set`, where a concurrent write can be lost.
   */
  compareAndSet?(key: string, expected: string | undefined, value: string, ttlMs?: number): Promise<boolean>;
}

/** A message waiting in an {@link Outbox}, as `due` hands it out. */
export interface OutboxMessage {
  /** The caller's id (e.g. a Standard Webhooks `webhook-id`): stable across attempts, restarts and gateways. */
  id: string;
  /** What is sent, as the caller wrote it. */
  body: string;
  /** Failed attempts so far, as the last `retryLater` recorded them (0 for a new message). */
  attempts: number;
}

/**
 * Messages the gateway sends to other systems (the `notify:` lifecycle webhooks), kept until sent so a
 * stop or crash loses none, and shared by every gateway on the store. Each target (the caller's key, e.g. one per
 * notify URL) has its own bounded outbox. `due` claims messages for a while (a lease): a claimed message is not
 * handed to anyone else until it is marked `done`, given a new time with `retryLater`, or its lease passes (its
 * sender died), so two gateways sharing the store send each message once.
 */
export interface Outbox {
  /**
   * Adds `message` to `target`'s outbox, due at once. When the target then holds more than `max` messages the
   * oldest (first added) are dropped; returns how many were.
   */
  add(target: string, message: { id: string; body: string }, max: number): Promise<{ dropped: number }>;
  /**
   * Claims up to `limit` of `target`'s due messages, first added first, for `leaseMs`: atomically, so a message is
   * claimed by one caller. Nothing due: an empty list.
   */
  due(target: string, limit: number, leaseMs: number): Promise<OutboxMessage[]>;
  /** Removes a message (sent, or given up on). An unknown id is no error. */
  done(target: string, id: string): Promise<void>;
  /**
   * Makes a claimed message due again at `at` (epoch ms; now to give it back unsent), recording `attempts`. An
   * unknown id (dropped meanwhile) is no error.
   */
  retryLater(target: string, id: string, at: number, attempts: number): Promise<void>;
}
