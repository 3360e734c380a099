// GitLab's Notes API over REST v4: create a note (POST .../notes), edit one (PUT .../notes/:note_id), and the token
// check of start() (GET /user). Every call sends the token in the PRIVATE-TOKEN header, which personal, project and
// group access tokens all accept, and turns GitLab's answers into errors that say what to do.
import { HookwiseError, type SecretScrubber } from '@hookwise/core';
import { classifyHttpStatus, describeRequest, joinUrl, sendHttp, type HttpMethod, type HttpRequest, type HttpResponse } from '@hookwise/kit/platform';
import { describeTarget, notesPath, type NoteTarget } from './note-target';

export const ID = 'gitlab_comment';

export interface NotesApiOptions {
  token: string;
  /** The GitLab instance, e.g. https://gitlab.com or https://gitlab.example.com (`/api/v4` is added). */
  api_base: string;
  timeout_seconds: number;
}

/** A note as GitLab answers it; only the id is relied on. */
export interface GitlabNote {
  id: number;
}

/** The instance root, whether or not the user wrote `/api/v4` at the end of api_base. */
export function instanceRoot(apiBase: string): string {
  return apiBase.replace(/\/+$/, '').replace(/\/api\/v4$/, '');
}

const TOKEN_HINT = `check platforms.${ID}.token: a personal, project or group access token with the api scope`;

export class NotesApi {
  constructor(
    private readonly options: NotesApiOptions,
    private readonly scrubber: SecretScrubber,
  ) {}

  async create(target: NoteTarget, body: string, signal: AbortSignal): Promise<GitlabNote> {
    const { res, request } = await this.send({ method: 'POST', url: this.url(notesPath(target)), json: { body } }, signal);
    this.check(res, request, target);
    return this.noteOf(res, target, 'POST');
  }

  /** Edits a note's body; undefined when the note is gone (deleted on GitLab), so that the caller creates a new one. */
  async edit(target: NoteTarget, noteId: number, body: string, signal: AbortSignal): Promise<GitlabNote | undefined> {
    const { res, request } = await this.send({ method: 'PUT', url: this.url(notesPath(target, noteId)), json: { body } }, signal);
    if (res.status === 404) return undefined;
    this.check(res, request, target);
    return this.noteOf(res, target, 'PUT');
  }

  /** Any REST v4 call (`path` under /api/v4), for the gitlab.note action (gitlab-actions.ts): the parsed JSON answer. */
  async call(method: HttpMethod, path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    const { res, request } = await this.send({ method, url: this.url(`/api/v4${path}`), ...(body === undefined ? {} : { json: body }) }, signal);
    this.check(res, request, undefined);
    return res.json ?? {};
  }

  /** The credentials check of start(): the token's own user (project and group tokens have a bot user). */
  async whoAmI(signal: AbortSignal): Promise<void> {
    const { res, request } = await this.send({ method: 'GET', url: this.url('/api/v4/user') }, signal);
    this.check(res, request, undefined);
  }

  private url(path: string): string {
    return joinUrl(instanceRoot(this.options.api_base), path);
  }

  private async send(req: HttpRequest, signal: AbortSignal): Promise<{ res: HttpResponse; request: HttpRequest }> {
    const request: HttpRequest = { ...req, headers: { 'private-token': this.options.token } };
    const res = await sendHttp(request, { signal, timeoutMs: this.options.timeout_seconds * 1000, scrubber: this.scrubber, label: ID });
    return { res, request };
  }

  /** Throws the error for a failed answer: 401/403 credentials, 404 target, 429/5xx retryable, other 4xx refused. */
  private check(res: HttpResponse, request: HttpRequest, target: NoteTarget | undefined): void {
    const failure = classifyHttpStatus(res);
    if (!failure) return;
    const base = this.scrubber.scrub(`${ID}: ${describeRequest(request, this.scrubber)} failed: ${failure.message}`);
    const on = target ? describeTarget(target) : 'the GitLab instance';
    if (res.status === 401) {
      throw new HookwiseError('HW_E_DELIVERY_AUTH', `${base}. GitLab rejected the token (expired or revoked?): ${TOKEN_HINT}`, { retryable: false });
    }
    if (res.status === 403) {
      throw new HookwiseError(
        'HW_E_DELIVERY_AUTH',
        `${base}. The token may not write notes on ${on}: give it the api scope and at least the Reporter role on the project (${TOKEN_HINT})`,
        { retryable: false },
      );
    }
    if (res.status === 404) {
      throw new HookwiseError(
        'HW_E_DELIVERY_TARGET',
        `${base}. ${on} was not found, or the token cannot see it: check deliver_extra.project and deliver_extra.merge_request_iid / issue_iid, and api_base for a self-managed GitLab`,
        { retryable: false },
      );
    }
    if (failure.kind === 'rate_limited' || failure.kind === 'unavailable') {
      const wait = failure.retryAfterSeconds;
      const why = failure.kind === 'rate_limited' ? 'Rate limited' : 'GitLab is unavailable';
      throw new HookwiseError('HW_E_DELIVERY', `${base}. ${why}; will retry${wait !== undefined ? ` after ${wait}s` : ''}`, {
        retryable: true,
        retryAfterSeconds: wait,
      });
    }
    throw new HookwiseError('HW_E_DELIVERY', `${base}. GitLab refused the note; it will not be retried`, { retryable: false });
  }

  private noteOf(res: HttpResponse, target: NoteTarget, method: string): GitlabNote {
    const id = (res.json as { id?: unknown } | undefined)?.id;
    if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) return { id };
    // A 2xx without a note: api_base points at something that is not GitLab's API (a proxy, a login page).
    throw new HookwiseError(
      'HW_E_DELIVERY',
      `${ID}: ${method} ${notesPath(target)} answered HTTP ${res.status} without a note id; is platforms.${ID}.api_base the GitLab instance (not a proxy or a sign-in page)? Not retried, as the note may have been posted`,
      { retryable: false },
    );
  }
}
