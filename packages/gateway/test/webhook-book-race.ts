// Shared by the stores' tests: gateways (one WebhookBook each, on memos of stores sharing one Redis or one SQLite
// file) subscribing at the same instant, and memos of two stores racing one compareAndSet.
import type { MemoKV } from '@hookwise/core';
import { WebhookBook, type WebhookSubscription } from '../src/mcp-events/webhook-book';

export function webhookSubscription(id: string, now = Date.now()): WebhookSubscription {
  return { id, client: 'agent', name: 'ci', url: 'https://hooks.example.com/in', secret: 'whsec_c2VjcmV0', createdAt: now, expiresAt: now + 600_000 };
}

/**
 * One book per memos, each putting `perBook` new subscriptions, all at once. Returns the ids put and what each
 * book then lists (sorted ids).
 */
export async function subscribeAtOnce(memos: MemoKV[], perBook: number): Promise<{ ids: string[]; listed: string[][] }> {
  const books = memos.map((m) => new WebhookBook(m));
  const ids = books.flatMap((_, b) => Array.from({ length: perBook }, (_, i) => `sub_${b}_${i}`));
  await Promise.all(books.flatMap((book, b) => ids.filter((id) => id.startsWith(`sub_${b}_`)).map((id) => book.put(webhookSubscription(id)))));
  const listed = await Promise.all(books.map(async (book) => (await book.all()).map((s) => s.id).sort()));
  return { ids: ids.sort(), listed };
}

/** `each` compareAndSets on every memos, all from the same `expected` (seeded with `set` unless undefined): how many wrote. */
export async function compareAndSetRace(memos: MemoKV[], key: string, expected: string | undefined, each: number): Promise<{ wrote: number; value?: string }> {
  if (expected !== undefined) await memos[0].set(key, expected);
  const answers = await Promise.all(memos.flatMap((m, s) => Array.from({ length: each }, (_, i) => m.compareAndSet!(key, expected, `store${s}-${i}`))));
  return { wrote: answers.filter(Boolean).length, value: await memos[memos.length - 1].get(key) };
}
