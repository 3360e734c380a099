// The route actions github_comment contributes: github.comment (a comment on the issue or pull request the event is
// about), github.add_labels (labels added to it) and github.review (a pull-request review with line comments), over
// GitHub's REST API with the destination's client: as the App when platforms.github_comment configures one
// (installation tokens minted from the payload's installation id, else looked up for the repository), else with
// the token of the gateway's environment (GH_TOKEN, else GITHUB_TOKEN; <config_dir>/.env included) and its API base
// (GITHUB_API_URL, for GitHub Enterprise Server). The gateway keeps the policy (which actions a route allows, calls
// per event), the exactly-once keys, retries and records; the checks here are each action's own limits (allowed
// labels, review verdicts). Failures say whether a retry can help (githubFailure).
import { HookwiseError, type ActionCheck, type ActionContext, type Deliverer, type DelivererAction, type PluginContext } from '@hookwise/core';
import { DEFAULT_API_BASE, createGithubClient, githubFailure, type GithubClient } from './github-client';

const ID = 'github_comment';

/** The github_comment destination as its actions see it. */
export interface GithubDestination extends Deliverer {
  /** The client the github.* actions act with: the App's, else the environment's token's; undefined without either. */
  readonly actionsClient?: GithubClient;
}

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
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
const text = (description: string) => ({ type: 'string', minLength: 1, description });

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

/**
 * The token path's client: GH_TOKEN (else GITHUB_TOKEN) and GITHUB_API_URL of the gateway's environment, the token
 * registered for redaction; undefined without a token.
 */
export function environmentClient(ctx: Pick<PluginContext, 'env' | 'redact' | 'logger'>): GithubClient | undefined {
  const token = ctx.env.GH_TOKEN || ctx.env.GITHUB_TOKEN || undefined;
  if (!token) return undefined;
  ctx.redact(token);
  return createGithubClient({
    token,
    tokenScheme: 'Bearer',
    apiBase: ctx.env.GITHUB_API_URL || DEFAULT_API_BASE,
    name: ID,
    warn: (message) => ctx.logger.warn(message),
  });
}

const enc = encodeURIComponent;
const issuePath = (t: GithubTarget) => `/repos/${enc(t.owner)}/${enc(t.repo)}/issues/${t.number}`;

/** One REST call for an action on the event's target, with the destination's client. */
async function send(context: ActionContext<GithubDestination>, target: GithubTarget, path: string, body: unknown): Promise<unknown> {
  const client = context.deliverer.actionsClient;
  if (!client) {
    throw new HookwiseError(
      'HW_E_DELIVERY',
      'no GitHub credentials for the github actions: set GH_TOKEN (or GITHUB_TOKEN) in <config_dir>/.env, or configure platforms.github_comment as a GitHub App (app_id, private key)',
      { retryable: false },
    );
  }
  try {
    // Octokit sends `data` as the request body as it is (no parameter of it is taken into the URL).
    const answer = await client.request(
      `POST ${path}`,
      { data: body },
      { signal: context.signal, installationId: target.installationId, repo: `${target.owner}/${target.repo}` },
    );
    return answer.data;
  } catch (err) {
    throw githubFailure(err, `POST ${path}`, ID);
  }
}

const bodyOnly =
  (name: string) =>
  (input: Record<string, unknown>): ActionCheck =>
    nonEmpty(input.body) ? { ok: true, input: { body: input.body } } : { ok: false, reason: `${name} needs a non-empty body` };

export const githubComment: DelivererAction<Record<string, never>, GithubDestination> = {
  name: 'github.comment',
  description: 'Post a comment on the GitHub issue or pull request this event is about.',
  optionsSchema: { type: 'object', additionalProperties: false, properties: {}, description: 'Comment on the issue or pull request of the event.' },
  inputSchema: { type: 'object', additionalProperties: false, required: ['body'], properties: { body: text('The comment, in Markdown.') } },
  check: bodyOnly('github.comment'),
  async run(input, context) {
    const target = githubTargetOf(context.payload);
    const made = await send(context, target, `${issuePath(target)}/comments`, { body: input.body });
    return { id: get(made, 'id'), url: get(made, 'html_url') };
  },
};

export interface AddLabelsOptions {
  /** Only these labels may be added (default: any). */
  allow?: string[];
}

export const githubAddLabels: DelivererAction<AddLabelsOptions, GithubDestination> = {
  name: 'github.add_labels',
  description: ({ allow }) =>
    `Add labels to the GitHub issue or pull request this event is about.${allow?.length ? ` Allowed labels: ${allow.join(', ')}.` : ''}`,
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      allow: { type: 'array', items: { type: 'string', pattern: '\\S' }, uniqueItems: true, description: 'Only these labels may be added (default: any).' },
    },
    description: 'Add labels to the issue or pull request of the event.',
  },
  inputSchema: ({ allow }) => {
    const items = allow?.length ? { type: 'string', enum: allow } : { type: 'string', minLength: 1 };
    return { type: 'object', additionalProperties: false, required: ['labels'], properties: { labels: { type: 'array', minItems: 1, items } } };
  },
  check(input, { allow }) {
    const labels = input.labels;
    if (!Array.isArray(labels) || !labels.length || !labels.every(nonEmpty))
      return { ok: false, reason: 'github.add_labels needs labels: a non-empty list of label names' };
    const refused = allow?.length ? labels.filter((label) => !allow.includes(label)) : [];
    if (refused.length) return { ok: false, reason: `label(s) not allowed on this route: ${refused.join(', ')}; allowed: ${allow!.join(', ')}` };
    return { ok: true, input: { labels: [...new Set(labels)] } };
  },
  async run(input, context) {
    const target = githubTargetOf(context.payload);
    const now = await send(context, target, `${issuePath(target)}/labels`, { labels: input.labels });
    return { labels: Array.isArray(now) ? now.map((label) => get(label, 'name')) : input.labels };
  },
};

export type ReviewVerdict = 'COMMENT' | 'APPROVE' | 'REQUEST_CHANGES';

export interface ReviewOptions {
  /** Review verdicts the agent may give (default: COMMENT only). */
  events?: ReviewVerdict[];
}

const verdictsOf = ({ events }: ReviewOptions): string[] => (events?.length ? events : ['COMMENT']);

export const githubReview: DelivererAction<ReviewOptions, GithubDestination> = {
  name: 'github.review',
  description: (options) =>
    `Review the GitHub pull request this event is about, with comments on lines of its diff. Verdicts allowed: ${verdictsOf(options).join(', ')}.`,
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      events: {
        type: 'array',
        items: { type: 'string', enum: ['COMMENT', 'APPROVE', 'REQUEST_CHANGES'] },
        uniqueItems: true,
        description: 'Review verdicts the agent may give (default: COMMENT only).',
      },
    },
    description: 'Review the pull request of the event, with line comments.',
  },
  inputSchema: (options) => ({
    type: 'object',
    additionalProperties: false,
    required: ['body'],
    properties: {
      body: text("The review's summary, in Markdown."),
      event: { type: 'string', enum: verdictsOf(options), description: 'The verdict (default COMMENT).' },
      comments: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['path', 'line', 'body'],
          properties: {
            path: text('The file, relative to the repository root.'),
            line: { type: 'integer', minimum: 1, description: 'The line of the diff the comment applies to (in the new file unless side is LEFT).' },
            side: { type: 'string', enum: ['LEFT', 'RIGHT'] },
            body: text('The comment.'),
          },
        },
      },
    },
  }),
  check(input, options) {
    if (!nonEmpty(input.body)) return { ok: false, reason: 'github.review needs a non-empty body' };
    const verdicts = verdictsOf(options);
    const event = input.event ?? 'COMMENT';
    if (typeof event !== 'string' || !verdicts.includes(event))
      return { ok: false, reason: `review verdict '${String(event)}' is not allowed on this route; allowed: ${verdicts.join(', ')}` };
    const comments = input.comments ?? [];
    if (!Array.isArray(comments)) return { ok: false, reason: 'github.review comments must be a list of {path, line, body}' };
    for (const [i, c] of comments.entries()) {
      if (!isObject(c) || !nonEmpty(c.path) || !Number.isInteger(c.line) || (c.line as number) < 1 || !nonEmpty(c.body))
        return { ok: false, reason: `github.review comment ${i + 1} needs path (a file), line (a positive whole number) and body` };
    }
    return { ok: true, input: { body: input.body, event, comments } };
  },
  async run(input, context) {
    const target = githubTargetOf(context.payload);
    const comments = (input.comments as Array<Record<string, unknown>>).map(({ path, line, side, body }) => ({ path, line, side: side ?? 'RIGHT', body }));
    const review = { ...(target.headSha ? { commit_id: target.headSha } : {}), body: input.body, event: input.event, comments };
    const made = await send(context, target, `/repos/${enc(target.owner)}/${enc(target.repo)}/pulls/${target.number}/reviews`, review);
    return { id: get(made, 'id'), url: get(made, 'html_url'), state: get(made, 'state') };
  },
};

/** In the order they are offered to an agent. */
export const GITHUB_ACTIONS = [githubComment, githubAddLabels, githubReview];
