// Conversations on GitLab: notes reply to no note in GitLab's hooks, so what a later comment answers is
// the merge request or issue itself. A receipt's target `group/project!7` (merge request) or `group/project#7`
// (issue) is recorded as chat `group/project` (lower-cased, as GitLab matches paths) and id `mr:7` or `issue:7`
// (an issue and a merge request of one project may share an iid), and each posted note as `note:<id>`, so that the
// gateway's own note coming back as a Note Hook is known as its own (source-gitlab's replyOf names it in `own`).
// A route that names its project by numeric id (`{project.id}`) records it under that id, which no hook's path
// matches: conversations need `project: "{project.path_with_namespace}"`. The answer to a reply is one more note
// on the same merge request or issue (sticky or not, as the route says).
import type { DelivererConversation, MessageRef } from '@hookwise/core';

const PLATFORM = 'gitlab';
/** describeTarget's notation: `!` before a merge request's iid, `#` before an issue's. */
const TARGET = /^(.+)([!#])(\d+)$/;
const KEY = /^(mr|issue):(\d+)$/;

export const gitlabConversation: DelivererConversation = {
  platform: PLATFORM,
  sentRefs(receipt) {
    const target = typeof receipt.target === 'string' ? TARGET.exec(receipt.target) : null;
    if (!target) return undefined;
    const chat = target[1].toLowerCase();
    const noteable = `${target[2] === '!' ? 'mr' : 'issue'}:${target[3]}`;
    const notes = (receipt.ids ?? []).filter((id) => typeof id === 'string' && id !== '').map((id) => `note:${id}`);
    const refs: MessageRef[] = [noteable, ...notes].map((messageId) => ({ platform: PLATFORM, chat, messageId }));
    return { chat: target[0], refs };
  },
  replyExtra(to, extra) {
    const key = KEY.exec(to.messageId);
    if (!key) return extra;
    // The route's own spelling of the project when it names the same one (GitLab paths keep their case).
    const project = extra.project?.trim().toLowerCase() === to.chat ? extra.project.trim() : to.chat;
    const { merge_request_iid: _mr, issue_iid: _issue, ...rest } = extra;
    return { ...rest, project, [key[1] === 'mr' ? 'merge_request_iid' : 'issue_iid']: key[2] };
  },
};
