// Sticky comments (deliver_extra.sticky): one comment per key (e.g. per pull request) that later answers edit in
// place. The comment's id is kept in the gateway's memos (PluginContext.memos), so a restarted gateway, or another
// gateway on the same Redis, edits the same comment.
import { HookwiseError, type MemoKV, type PluginLogger } from '@hookwise/core';
import { CommentGone, type CommentApi, type PostedComment } from './comment-api';

/** A sticky comment's id is forgotten after this long without an answer (each answer starts it again). */
export const STICKY_TTL_MS = 180 * 24 * 60 * 60_000;
/** Longest sticky key kept (after templating). */
const STICKY_KEY_MAX = 300;

/** For a deliverer used without a gateway (tests, embedding) or in an older one: this process's memory. */
export class LocalMemos implements MemoKV {
  private readonly entries = new Map<string, string>();
  async get(key: string): Promise<string | undefined> {
    return this.entries.get(key);
  }
  async set(key: string, value: string): Promise<void> {
    this.entries.set(key, value);
    if (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value as string);
  }
  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }
}

/** The rendered deliver_extra.sticky, checked: a template whose placeholder stayed unresolved must not merge comments. */
export function stickyKey(extra: Record<string, string> | undefined): string | undefined {
  const key = extra?.sticky?.trim();
  if (!key) return undefined;
  if (key.length > STICKY_KEY_MAX || /\{[^}]*\}/.test(key)) {
    throw new HookwiseError(
      'HW_E_DELIVERY_TARGET',
      `github_comment: deliver_extra.sticky rendered to ${JSON.stringify(key.slice(0, 100))}: it must be under ${STICKY_KEY_MAX} characters with every "{...}" resolved (the payload lacks that key?)`,
      { retryable: false },
    );
  }
  return key;
}

/** A sticky comment is one comment: an answer over GitHub's 65536-character limit is cut, saying so, instead of split. */
export function stickyBody(text: string, limit = 65536): string {
  if (text.length <= limit) return text;
  const note = `\n\n… (cut at GitHub's ${limit}-character comment limit)`;
  return text.slice(0, limit - note.length) + note;
}

export interface StickyDelivery {
  api: CommentApi;
  memos: MemoKV;
  /** The memo's key: the deliverer's id, who posts (gh or the App, and where) and the sticky key. */
  memoKey: string;
  repo: string;
  number: number;
  body: string;
  signal: AbortSignal;
  logger: PluginLogger;
}

// One answer per key at a time in this process, so two jobs for one pull request never both create a comment.
const running = new Map<string, Promise<unknown>>();

/** Edits the key's comment, or creates it (first answer, or the comment was deleted) and remembers its id. */
export async function deliverSticky(d: StickyDelivery): Promise<PostedComment & { created: boolean }> {
  const before = running.get(d.memoKey) ?? Promise.resolve();
  const turn = before.catch(() => undefined).then(() => stickyOnce(d));
  running.set(d.memoKey, turn);
  try {
    return await turn;
  } finally {
    if (running.get(d.memoKey) === turn) running.delete(d.memoKey);
  }
}

async function stickyOnce(d: StickyDelivery): Promise<PostedComment & { created: boolean }> {
  const known = await d.memos.get(d.memoKey);
  if (known) {
    try {
      const edited = await d.api.edit(d.repo, known, d.body, d.signal);
      // Written again so that the TTL counts from the latest answer.
      await d.memos.set(d.memoKey, known, STICKY_TTL_MS);
      return { ...edited, id: edited.id || known, created: false };
    } catch (err) {
      if (!(err instanceof CommentGone)) throw err;
      d.logger.info(`github_comment: the sticky comment ${known} on ${d.repo} was deleted; posting a new one`);
    }
  }
  const created = await d.api.create(d.repo, d.number, d.body, d.signal);
  if (!created.id)
    throw new HookwiseError('HW_E_DELIVERY', `github_comment: GitHub's answer to the new comment on ${d.repo}#${d.number} has no id`, { retryable: false });
  await d.memos.set(d.memoKey, created.id, STICKY_TTL_MS);
  return { ...created, created: true };
}
