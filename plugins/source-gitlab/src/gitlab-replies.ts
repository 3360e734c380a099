// What a GitLab Note Hook means for conversations. GitLab notes reply to no note in the hook's payload,
// so what a new comment answers is its merge request or issue: chat `project.path_with_namespace` lower-cased (as
// GitLab matches paths), message id `mr:<iid>` or `issue:<iid>` (an issue and a merge request of one project may
// share an iid), where the gitlab_comment deliverer records the gateway's answers. System notes ("changed the
// description"), edits (`object_attributes.action` update, GitLab 16.11+), comments on commits and snippets, and
// bot users (project and group access tokens post as `project_<id>_bot_<hex>` / `group_<id>_bot_<hex>`) continue
// nothing; `own` names the note by its id, so that a note the gateway posted (with a person's token too) is known
// as its own. allow_from matches the username or the numeric user id.
import type { InboundReply } from '@hookwise/core';
import { isPayloadObject, payloadId, payloadText } from '@hookwise/kit/source';

/** The usernames GitLab gives the bot users of project and group access tokens (and service accounts' prefix). */
const BOT_USERNAME = /^(project|group)_\d+_bot(_[0-9a-f]+)?$|^service_account_/;

/** The noteable types a conversation can be held on, and the prefix of their record key. */
const NOTEABLE: Record<string, { key: 'merge_request' | 'issue'; prefix: string }> = {
  MergeRequest: { key: 'merge_request', prefix: 'mr' },
  Issue: { key: 'issue', prefix: 'issue' },
};

/** The record key of one note (its instance-wide id), for `own`. */
export const gitlabNoteKey = (id: string | number): string => `note:${id}`;

export function gitlabReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const { object_attributes: note, project, user } = payload;
  if (payload.object_kind !== 'note' || !isPayloadObject(note) || !isPayloadObject(project) || !isPayloadObject(user)) return undefined;
  if (note.system === true || (note.action !== undefined && note.action !== 'create')) return undefined;
  const noteable = typeof note.noteable_type === 'string' ? NOTEABLE[note.noteable_type] : undefined;
  const target = noteable ? payload[noteable.key] : undefined;
  if (!noteable || !isPayloadObject(target)) return undefined;
  const iid = payloadId(target.iid);
  const chat = payloadId(project.path_with_namespace)?.toLowerCase();
  const username = payloadId(user.username);
  if (!iid || !chat || !username || BOT_USERNAME.test(username)) return undefined;
  const userId = payloadId(user.id);
  const noteId = payloadId(note.id);
  const name = payloadId(user.name);
  return {
    to: { platform: 'gitlab', chat, messageId: `${noteable.prefix}:${iid}` },
    userId: username,
    alsoAllowedAs: userId ? [userId] : [],
    own: noteId ? { platform: 'gitlab', chat, messageId: gitlabNoteKey(noteId) } : undefined,
    from: `GitLab user ${username}${name ? ` (${name})` : ''}`,
    text: payloadText(note.note),
  };
}
