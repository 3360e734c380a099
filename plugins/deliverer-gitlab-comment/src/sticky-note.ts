// Sticky notes (`deliver_extra.sticky: "<key template>"`): the first answer for a key creates the note, later answers
// for the same key edit it. The note's id is kept in the gateway's memos (PluginContext.memos: the store's, so it is
// found again after a restart and by every gateway on a shared store).
import { createHash } from 'node:crypto';
import type { MemoKV } from '@hookwise/core';
import type { NotesApi } from './notes-api';
import { ID } from './notes-api';
import type { NoteTarget } from './note-target';

/** A sticky note not edited for this long is forgotten (the merge request is long closed); each edit renews it. */
export const STICKY_TTL_MS = 365 * 24 * 60 * 60 * 1000;

/** What happened to the sticky note: made now, or an earlier one edited. */
export type StickyOutcome = 'created' | 'edited';

/**
 * The memo key of a sticky note: the key the route rendered, within its target (a note id is only ever edited on
 * the merge request or issue it was posted on, whatever key two routes happen to render). Hashed: memo keys stay
 * short whatever the payload put into the template.
 */
export function stickyMemoKey(target: NoteTarget, sticky: string): string {
  const digest = createHash('sha256').update(`${target.project}\n${target.kind}\n${target.iid}\n${sticky}`).digest('hex');
  return `${ID}:sticky:${digest}`;
}

/** Posts `body` as the sticky note of `sticky` on `target`: edits the remembered note, else creates one and remembers it. */
export async function postSticky(
  api: NotesApi,
  memos: MemoKV,
  target: NoteTarget,
  sticky: string,
  body: string,
  signal: AbortSignal,
): Promise<{ id: number; outcome: StickyOutcome }> {
  const key = stickyMemoKey(target, sticky);
  const remembered = Number(await memos.get(key));
  if (Number.isSafeInteger(remembered) && remembered > 0) {
    const edited = await api.edit(target, remembered, body, signal);
    if (edited) {
      await memos.set(key, String(edited.id), STICKY_TTL_MS);
      return { id: edited.id, outcome: 'edited' };
    }
    // The note was deleted on GitLab: a new one takes its place.
  }
  const note = await api.create(target, body, signal);
  await memos.set(key, String(note.id), STICKY_TTL_MS);
  return { id: note.id, outcome: 'created' };
}
