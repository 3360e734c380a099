// Which merge request or issue a note goes to: deliver_extra.project with deliver_extra.merge_request_iid or
// deliver_extra.issue_iid, checked strictly before any request is made (they come from webhook payloads, i.e. from
// strangers), and the REST paths of GitLab's Notes API built from them.
import { HookwiseError } from '@hookwise/core';

/** What a note is attached to: GitLab's notes API has one path per noteable type. */
export type NoteableKind = 'merge_request' | 'issue';

export interface NoteTarget {
  /** The project as given: a numeric id or a full path (`group/subgroup/project`). */
  project: string;
  kind: NoteableKind;
  iid: number;
}

/** A namespace or project path segment as GitLab allows them: letters, digits, `_`, `-`, `.` (never `.` or `..` alone). */
const PATH_SEGMENT = /^[A-Za-z0-9_.-]+$/;
const NUMERIC_ID = /^[1-9][0-9]{0,18}$/;
const IID = /^[1-9][0-9]{0,9}$/;

const shown = (value: string): string => JSON.stringify(value.slice(0, 100));

function projectProblem(project: string): string | undefined {
  if (!project) return 'deliver_extra.project is missing (e.g. project: "{project.path_with_namespace}" or "{project.id}")';
  if (NUMERIC_ID.test(project)) return undefined;
  const segments = project.split('/');
  if (segments.length < 2 || segments.some((s) => !PATH_SEGMENT.test(s) || s === '.' || s === '..')) {
    return `deliver_extra.project must be a numeric project id or a path like group/project, got ${shown(project)}`;
  }
  return undefined;
}

export function resolveNoteTarget(extra: Record<string, string> | undefined): NoteTarget {
  const project = extra?.project?.trim() ?? '';
  const mr = extra?.merge_request_iid?.trim() ?? '';
  const issue = extra?.issue_iid?.trim() ?? '';
  const problems: string[] = [];
  const bad = projectProblem(project);
  if (bad) problems.push(bad);
  if (mr && issue) problems.push('set deliver_extra.merge_request_iid or deliver_extra.issue_iid, not both');
  else if (!mr && !issue) {
    problems.push('deliver_extra.merge_request_iid (e.g. "{object_attributes.iid}" on a merge request hook) or deliver_extra.issue_iid is missing');
  }
  const iid = mr || issue;
  if (iid && !IID.test(iid)) problems.push(`the ${mr ? 'merge_request_iid' : 'issue_iid'} must be a positive integer, got ${shown(iid)}`);
  if (problems.length) {
    throw new HookwiseError(
      'HW_E_DELIVERY_TARGET',
      `gitlab_comment: ${problems.join('; ')} (after templating; a "{...}" left in place means the payload lacks that key)`,
      { retryable: false },
    );
  }
  return { project, kind: mr ? 'merge_request' : 'issue', iid: Number(iid) };
}

/** `group/project!7` for a merge request, `group/project#7` for an issue: GitLab's own reference notation. */
export function describeTarget(target: NoteTarget): string {
  return `${target.project}${target.kind === 'merge_request' ? '!' : '#'}${target.iid}`;
}

/**
 * The notes collection of the target, under `/api/v4`: `/projects/:id/merge_requests/:iid/notes` or
 * `/projects/:id/issues/:iid/notes`, the project path URL-encoded as one segment (`group%2Fproject`).
 */
export function notesPath(target: NoteTarget, noteId?: number): string {
  const collection = target.kind === 'merge_request' ? 'merge_requests' : 'issues';
  const base = `/api/v4/projects/${encodeURIComponent(target.project)}/${collection}/${target.iid}/notes`;
  return noteId === undefined ? base : `${base}/${noteId}`;
}
