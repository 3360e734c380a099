// The GitHub calls behind the github.* actions (issue 30), over GitHub's REST API: a comment on an issue or pull
// request, labels added to one, a pull-request review with line comments. The paths and bodies are built here; who
// sends them is an ActionsApi (core): the github_comment destination's when it runs as a GitHub App (its client
// mints installation tokens: the gateway imports no plugin and reaches it through the deliverer registry), else
// tokenApi below, plain fetch with a token (GH_TOKEN, else GITHUB_TOKEN, from the gateway's environment, which
// holds <config_dir>/.env) and the API base (GITHUB_API_URL, for GitHub Enterprise Server; default
// https://api.github.com). Failures say whether a retry can help: 5xx, 429 and network errors may be retried
// (honouring Retry-After), other answers are refused for good with GitHub's own message.
import { HookwiseError, type ActionsApi } from '@hookwise/core';

/** The issue or pull request an event is about: the only one the github.* actions may touch. */
export interface GithubTarget {
  owner: string;
  repo: string;
  number: number;
  /** The pull request's head commit, when the event is about a pull request (reviews are pinned to it). */
  headSha?: string;
  /** The payload's installation.id: which installation a GitHub App acts as (else looked up for the repository). */
  installationId?: string;
}

const get = (value: unknown, key: string): unknown => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined);

/** The event's repository and issue or pull request number, from GitHub's webhook payload shapes. */
export function githubTargetOf(payload: unknown): GithubTarget {
  const fullName = get(get(payload, 'repository'), 'full_name');
  const pr = get(payload, 'pull_request');
  const number = get(get(payload, 'issue'), 'number') ?? get(pr, 'number') ?? get(payload, 'number');
  if (typeof fullName !== 'string' || !fullName.includes('/') || typeof number !== 'number') {
    throw new HookwiseError(
      'HW_E_DELIVERY',
      'this event is not about a GitHub issue or pull request (its payload has no repository.full_name with issue.number or pull_request.number), so the github actions have nothing to act on',
      { retryable: false },
    );
  }
  const [owner, repo] = fullName.split('/', 2);
  const headSha = get(get(pr, 'head'), 'sha');
  const installation = get(get(payload, 'installation'), 'id');
  return {
    owner,
    repo,
    number,
    headSha: typeof headSha === 'string' ? headSha : undefined,
    installationId: typeof installation === 'number' || typeof installation === 'string' ? String(installation) : undefined,
  };
}

export interface GithubSettings {
  token?: string;
  apiBase: string;
}

/** The token and API base from the gateway's environment. */
export function githubSettingsOf(env: NodeJS.ProcessEnv): GithubSettings {
  return { token: env.GH_TOKEN || env.GITHUB_TOKEN || undefined, apiBase: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '') };
}

/** The github.* actions over an API: the App's (the github_comment destination's) or the token's. */
export class GithubActions {
  constructor(private readonly apiFor: () => Promise<ActionsApi>) {}

  async comment(target: GithubTarget, body: string, signal: AbortSignal): Promise<unknown> {
    const made = await this.send(target, 'POST', `${issuePath(target)}/comments`, { body }, signal);
    return { id: get(made, 'id'), url: get(made, 'html_url') };
  }

  async addLabels(target: GithubTarget, labels: string[], signal: AbortSignal): Promise<unknown> {
    const now = await this.send(target, 'POST', `${issuePath(target)}/labels`, { labels }, signal);
    return { labels: Array.isArray(now) ? now.map((label) => get(label, 'name')) : labels };
  }

  async review(target: GithubTarget, input: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const comments = (input.comments as Array<Record<string, unknown>>).map(({ path, line, side, body }) => ({ path, line, side: side ?? 'RIGHT', body }));
    const review = { ...(target.headSha ? { commit_id: target.headSha } : {}), body: input.body, event: input.event, comments };
    const made = await this.send(target, 'POST', `/repos/${enc(target.owner)}/${enc(target.repo)}/pulls/${target.number}/reviews`, review, signal);
    return { id: get(made, 'id'), url: get(made, 'html_url'), state: get(made, 'state') };
  }

  private async send(target: GithubTarget, method: 'POST', path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    const api = await this.apiFor();
    return api.request(method, path, body, { signal, installationId: target.installationId, repo: `${target.owner}/${target.repo}` });
  }
}

/** GitHub's REST API with a token (GH_TOKEN), over plain fetch: the github.* actions when no App is configured. */
export function tokenApi(settings: GithubSettings, fetchFn: typeof fetch = fetch): ActionsApi {
  return {
    host: 'github',
    async request(method, path, body, { signal }) {
      const { token, apiBase } = settings;
      if (!token) {
        throw new HookwiseError(
          'HW_E_DELIVERY',
          'no GitHub credentials for the github actions: set GH_TOKEN (or GITHUB_TOKEN) in <config_dir>/.env, or configure platforms.github_comment as a GitHub App (app_id, private key)',
          { retryable: false },
        );
      }
      const where = `${method} ${path}`;
      let res: Response;
      try {
        res = await fetchFn(`${apiBase}${path}`, {
          method,
          signal,
          headers: {
            accept: 'application/vnd.github+json',
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'user-agent': 'hookwise',
            'x-github-api-version': '2022-11-28',
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (err) {
        throw new HookwiseError('HW_E_DELIVERY', `GitHub API ${where} could not be reached: ${(err as Error).message}`, { retryable: true, cause: err });
      }
      const text = await res.text();
      if (res.ok) return text ? (JSON.parse(text) as unknown) : {};
      const said = get(safeJson(text), 'message');
      const retryable = res.status >= 500 || res.status === 429;
      const wait = Number(res.headers.get('retry-after'));
      throw new HookwiseError(
        'HW_E_DELIVERY',
        `GitHub API ${where} answered ${res.status}${typeof said === 'string' ? `: ${said}` : ''}${res.status === 401 ? ' (check GH_TOKEN)' : res.status === 403 || res.status === 404 ? " (check the token's access to this repository)" : ''}`,
        { retryable, retryAfterSeconds: retryable && Number.isFinite(wait) && wait > 0 ? wait : undefined },
      );
    },
  };
}

const enc = encodeURIComponent;
const issuePath = (t: GithubTarget) => `/repos/${enc(t.owner)}/${enc(t.repo)}/issues/${t.number}`;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
