// A GitHub REST client for Hookwise's GitHub destinations and actions: a token, or a GitHub App (app JWT ->
// installation token, minted by @octokit/auth-app and cached until shortly before it expires), over @octokit/core,
// with GitHub Enterprise Server's API base. Failures become HookwiseErrors that say whether a retry may help.
//
// Octokit's current majors (core 6+, auth-app 7+) are ES modules only; this repository compiles to CommonJS and its
// tests run under jest's CommonJS loader, so the last CommonJS majors (core 5, auth-app 6) are used.
import { HookwiseError } from '@hookwise/core';
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';

export const DEFAULT_API_BASE = 'https://api.github.com';
/** The REST API version every call asks for (GitHub's X-GitHub-Api-Version header). */
export const GITHUB_API_VERSION = '2022-11-28';
/** Installation tokens live an hour; one is minted again this long before it expires. */
export const REFRESH_BEFORE_MS = 5 * 60_000;
/** How long a repository's installation id, looked up with the app JWT, is reused. */
const INSTALLATION_LOOKUP_TTL_MS = 60 * 60_000;

export interface GithubClientOptions {
  /** `https://api.github.com`, or `https://<host>/api/v3` for GitHub Enterprise Server. */
  apiBase?: string;
  /** Token mode: a personal or fine-grained token, sent as `token <token>` (or `Bearer <token>`, see tokenScheme). */
  token?: string;
  /** How token mode sends the token: `token` (default) or `Bearer` (the route actions' token path always has). */
  tokenScheme?: 'token' | 'Bearer';
  /** App mode: the app's id and its PEM private key. */
  app?: { appId: string | number; privateKey: string };
  userAgent?: string;
  /** For tests: the clock that decides when a cached installation token is too old. */
  now?: () => number;
  refreshBeforeMs?: number;
  /** Where the client's warnings go (e.g. GitHub's clock differs from ours). */
  warn?: (message: string) => void;
  /** Names the client in its error messages, e.g. `github_comment`. */
  name?: string;
}

/** Which installation an App-mode call acts as: its id (from the payload) or the repository to look it up for. */
export interface InstallationRef {
  installationId?: string | number;
  repo?: string;
}

export interface GithubResponse<T> {
  status: number;
  data: T;
  headers: Record<string, string | number | undefined>;
}

export interface GithubClient {
  readonly mode: 'token' | 'app';
  readonly apiBase: string;
  /**
   * One REST call, e.g. `request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { owner, repo,
   * comment_id, body }, { repo: 'owner/name' })`; in App mode as the installation `as` names. Throws a HookwiseError.
   */
  request<T = unknown>(route: string, params?: Record<string, unknown>, as?: InstallationRef & { signal?: AbortSignal }): Promise<GithubResponse<T>>;
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

interface HttpFailure {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
}

/** A HookwiseError for a failed call: auth and target problems are final, rate limits and outages are retried. */
export function githubFailure(err: unknown, what: string, name = 'github'): HookwiseError {
  if (err instanceof HookwiseError) return err;
  const failure = err as HttpFailure;
  const status = failure.status;
  const headers = failure.response?.headers ?? {};
  const said = String((failure.response?.data as { message?: unknown } | undefined)?.message ?? failure.message ?? err).slice(0, 300);
  const base = `${name}: ${what} failed${status ? ` (HTTP ${status})` : ''}: ${said}`;
  const retryAfter = Number(headers['retry-after']);
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined;
  if (status === undefined || status === 0)
    return new HookwiseError('HW_E_DELIVERY', `${base}. GitHub could not be reached; will retry`, { retryable: true, cause: err });
  if (status === 429 || (status === 403 && (String(headers['x-ratelimit-remaining']) === '0' || /rate limit/i.test(said)))) {
    return new HookwiseError('HW_E_DELIVERY', `${base}. Rate limited; will retry`, { retryable: true, retryAfterSeconds, cause: err });
  }
  if (status >= 500) return new HookwiseError('HW_E_DELIVERY', `${base}. GitHub is failing; will retry`, { retryable: true, retryAfterSeconds, cause: err });
  if (status === 401) {
    return new HookwiseError('HW_E_DELIVERY_AUTH', `${base}. GitHub refused the credentials: check the token, or the App's id and private key`, {
      retryable: false,
      cause: err,
    });
  }
  if (status === 403) {
    return new HookwiseError(
      'HW_E_DELIVERY_AUTH',
      `${base}. Not allowed: give the token or the App the permission this needs (comments: "Issues" or "Pull requests" write) and install the App on the repository`,
      { retryable: false, cause: err },
    );
  }
  return new HookwiseError('HW_E_DELIVERY_TARGET', `${base}. Check the repository and number`, { retryable: false, cause: err });
}

const splitRepo = (repo: string): { owner: string; repo: string } => {
  const [owner, name] = repo.split('/');
  return { owner, repo: name };
};

/** A GitHub REST client: token mode with `token`, App mode with `app`. */
export function createGithubClient(options: GithubClientOptions): GithubClient {
  const apiBase = (options.apiBase ?? DEFAULT_API_BASE).replace(/\/+$/, '');
  const name = options.name ?? 'github';
  const now = options.now ?? Date.now;
  const refreshBeforeMs = options.refreshBeforeMs ?? REFRESH_BEFORE_MS;
  if (!options.token && !options.app) throw new Error(`${name}: createGithubClient needs a token or an app`);
  const octokit = new Octokit({ baseUrl: apiBase, userAgent: options.userAgent ?? 'hookwise' });
  // GitHub's documented headers on every call, the app's and the installation's alike.
  const request = octokit.request.defaults({ headers: { accept: 'application/vnd.github+json', 'x-github-api-version': GITHUB_API_VERSION } });

  const tokens = new Map<string, Promise<CachedToken>>();
  const installations = new Map<string, { id: string; until: number }>();
  const app = options.app;
  const appAuth = app
    ? createAppAuth({
        appId: app.appId,
        privateKey: app.privateKey,
        request,
        // The installation tokens are cached below, where their expiry is read; auth-app keeps none of its own.
        cache: { get: () => '', set: () => undefined },
        // auth-app dates a JWT's iat 30 s back; GitHub recommends 60 s against clock drift, so 30 s more (exp
        // follows: 9 minutes ahead, under GitHub's 10-minute maximum).
        timeDifference: -30,
        log: { warn: (message: string) => options.warn?.(`${name}: ${message}`) },
      })
    : undefined;

  const installationFor = async (as: InstallationRef | undefined): Promise<string> => {
    const given = as?.installationId === undefined ? '' : String(as.installationId).trim();
    if (given) {
      if (!/^[1-9][0-9]{0,19}$/.test(given)) {
        throw new HookwiseError('HW_E_DELIVERY_TARGET', `${name}: the installation id must be a positive integer, got ${JSON.stringify(given.slice(0, 60))}`, {
          retryable: false,
        });
      }
      return given;
    }
    if (!as?.repo) throw new Error(`${name}: an App-mode call needs an installation id or a repository`);
    const known = installations.get(as.repo);
    if (known && known.until > now()) return known.id;
    const jwt = (await appAuth!({ type: 'app' })).token;
    try {
      const found = await request('GET /repos/{owner}/{repo}/installation', { ...splitRepo(as.repo), headers: { authorization: `Bearer ${jwt}` } });
      const id = String((found.data as { id: number }).id);
      installations.set(as.repo, { id, until: now() + INSTALLATION_LOOKUP_TTL_MS });
      return id;
    } catch (err) {
      const failure = githubFailure(err, `looking up the App's installation on ${as.repo}`, name);
      if ((err as HttpFailure).status === 404) {
        throw new HookwiseError('HW_E_DELIVERY_TARGET', `${failure.message}: install the App on ${as.repo} (or pass deliver_extra.installation_id)`, {
          retryable: false,
        });
      }
      throw failure;
    }
  };

  const installationToken = async (installationId: string): Promise<string> => {
    const cached = tokens.get(installationId);
    if (cached) {
      const token = await cached.catch(() => undefined);
      if (token && token.expiresAt - refreshBeforeMs > now()) return token.token;
      if (tokens.get(installationId) !== cached) return installationToken(installationId);
    }
    // One mint at a time per installation: concurrent deliveries share it.
    const minted = appAuth!({ type: 'installation', installationId, refresh: true }).then((auth) => ({
      token: auth.token,
      expiresAt: Date.parse(auth.expiresAt),
    }));
    tokens.set(installationId, minted);
    try {
      return (await minted).token;
    } catch (err) {
      tokens.delete(installationId);
      throw githubFailure(err, `minting an installation token for installation ${installationId}`, name);
    }
  };

  return {
    mode: app ? 'app' : 'token',
    apiBase,
    async request<T>(route: string, params: Record<string, unknown> = {}, as?: InstallationRef & { signal?: AbortSignal }): Promise<GithubResponse<T>> {
      let installationId: string | undefined;
      let authorization: string;
      if (app) {
        installationId = await installationFor(as);
        authorization = `token ${await installationToken(installationId)}`;
      } else {
        authorization = `${options.tokenScheme ?? 'token'} ${options.token}`;
      }
      try {
        const answer = await request(route, { ...params, headers: { authorization }, request: { signal: as?.signal } });
        return { status: answer.status, data: answer.data as T, headers: answer.headers as GithubResponse<T>['headers'] };
      } catch (err) {
        // A revoked or expired installation token: the next attempt mints a new one.
        if (installationId !== undefined && (err as HttpFailure).status === 401) {
          tokens.delete(installationId);
          throw new HookwiseError('HW_E_DELIVERY', `${name}: GitHub refused installation ${installationId}'s token (HTTP 401); a new one is minted on retry`, {
            retryable: true,
            cause: err,
          });
        }
        throw err;
      }
    },
  };
}
