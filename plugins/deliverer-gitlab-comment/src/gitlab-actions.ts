// The route action gitlab_comment contributes: gitlab.note, a note on the merge request or issue the event is about
// (POST /projects/:id/merge_requests/:iid/notes or /projects/:id/issues/:iid/notes, GitLab's Notes API), sent with
// the destination's client (its token and api_base, platforms.gitlab_comment). The gateway keeps the policy (which
// actions a route allows, calls per event), the exactly-once keys, retries and records.
import { HookwiseError, type Deliverer, type DelivererAction } from '@hookwise/core';
import type { NotesApi } from './notes-api';

/** The gitlab_comment destination as its action sees it. */
export interface GitlabDestination extends Deliverer {
  /** The destination's REST client (its token and api_base). */
  readonly notesApi: NotesApi;
}

/** The merge request or issue an event is about: the only one gitlab.note may write on. */
export interface GitlabTarget {
  /** The numeric project id (GitLab's webhooks always carry it). */
  project: number;
  kind: 'merge_request' | 'issue';
  iid: number;
}

const get = (value: unknown, key: string): unknown => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined);
const positive = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/**
 * From GitLab's webhook payloads: a merge request or issue hook (object_kind and object_attributes.iid), or a note,
 * pipeline or other hook naming merge_request.iid or issue.iid; the project from project.id.
 */
export function gitlabTargetOf(payload: unknown): GitlabTarget {
  const project = get(get(payload, 'project'), 'id') ?? get(payload, 'project_id');
  const kind = get(payload, 'object_kind');
  const ownIid = get(get(payload, 'object_attributes'), 'iid');
  const mr = get(get(payload, 'merge_request'), 'iid');
  const issue = get(get(payload, 'issue'), 'iid');
  const target =
    kind === 'merge_request' && positive(ownIid)
      ? { kind: 'merge_request' as const, iid: ownIid }
      : kind === 'issue' && positive(ownIid)
        ? { kind: 'issue' as const, iid: ownIid }
        : positive(mr)
          ? { kind: 'merge_request' as const, iid: mr }
          : positive(issue)
            ? { kind: 'issue' as const, iid: issue }
            : undefined;
  if (!positive(project) || !target) {
    throw new HookwiseError(
      'HW_E_DELIVERY',
      'this event is not about a GitLab merge request or issue (its payload has no project.id with object_attributes.iid of a merge_request or issue hook, merge_request.iid or issue.iid), so gitlab.note has nothing to write on',
      { retryable: false },
    );
  }
  return { project, ...target };
}

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

export const gitlabNote: DelivererAction<Record<string, never>, GitlabDestination> = {
  name: 'gitlab.note',
  description: 'Post a note on the GitLab merge request or issue this event is about.',
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {},
    description: 'Post a note on the merge request or issue of the event (with platforms.gitlab_comment.token).',
  },
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['body'],
    properties: { body: { type: 'string', minLength: 1, description: 'The note, in Markdown.' } },
  },
  check: (input) => (nonEmpty(input.body) ? { ok: true, input: { body: input.body } } : { ok: false, reason: 'gitlab.note needs a non-empty body' }),
  /** Posts the note and answers its id and GitLab's reference (group/project!7 is for people; the id is GitLab's). */
  async run(input, { deliverer, payload, signal }) {
    const target = gitlabTargetOf(payload);
    const collection = target.kind === 'merge_request' ? 'merge_requests' : 'issues';
    const made = await deliverer.notesApi.call('POST', `/projects/${target.project}/${collection}/${target.iid}/notes`, { body: input.body }, signal);
    return { id: get(made, 'id'), on: `${target.kind === 'merge_request' ? '!' : '#'}${target.iid}`, project: target.project };
  },
};
