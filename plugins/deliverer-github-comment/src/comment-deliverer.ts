// github_comment (formerly codehost_a_comment): posts the answer as a pull-request or issue comment with the
// code host's CLI (`gh pr|issue comment <n> --repo <owner/name> --body-file -`), or as a GitHub App over the REST
// API (app-mode.ts), splitting bodies over the 65536-character comment limit, or as one sticky comment edited by
// later answers (sticky-comment.ts), and turning failures into errors that say what to do.
import { HookwiseError, type DelivererContribution, type PluginContext, type ProgressKV } from '@hookwise/core';
import { runProcess, type ProcessResult } from '@hookwise/kit';
import { PROGRESS_TTL_MS, chunkText, progressKey } from '@hookwise/kit/platform';
import { appModeSchema, openAppMode, type AppModeOptions } from './app-mode';
import { ghCommentApi, type CommentApi } from './comment-api';
import { githubConversation } from './comment-conversation';
import { GITHUB_ACTIONS, environmentClient, type GithubDestination } from './github-actions';
import { planComment, resolveCommentTarget, type CommentKind } from './comment-target';
import { deliverReviewReplies } from './review-reply';
import { LocalMemos, deliverSticky, stickyBody, stickyKey } from './sticky-comment';

export interface CommentOptions extends AppModeOptions {
  cli_path: string;
  timeout_seconds: number;
}

export const COMMENT_LIMIT = 65536;
const ID = 'github_comment';
/** What `gh pr comment` prints when the number is an issue (or nothing at all), not a pull request. */
const NOT_A_PULL_REQUEST = /could not resolve to a ?pull ?request/i;

/** What explainFailure reads of a finished run of the client. */
export type CliOutcome = Pick<ProcessResult, 'exitCode' | 'stderr' | 'timedOut'> & Partial<Pick<ProcessResult, 'aborted'>>;

/** Why a failed run failed, from what the client printed; the client's wording is the only signal. */
export function explainFailure(result: CliOutcome, cli: string, target: string, kind: CommentKind = 'pr', command = `${cli} ${kind} comment`): HookwiseError {
  const said = result.stderr.trim().replace(/\s+/g, ' ').slice(0, 300) || `exit code ${result.exitCode}`;
  const base = `${ID}: '${command}' on ${target} failed: ${said}`;
  // Killed because the gateway is shutting down: whether the comment was posted is unknown, so the job is retried.
  if (result.aborted) return new HookwiseError('HW_E_DELIVERY', `${base} (cancelled: the gateway is shutting down)`, { retryable: true });
  if (result.timedOut)
    return new HookwiseError('HW_E_DELIVERY', `${base} (timed out; raise platforms.${ID}.timeout_seconds if the host is slow)`, { retryable: true });
  if (/auth login|not logged|authenticat|HTTP 401|bad credentials|token.*(invalid|expired)/i.test(said)) {
    return new HookwiseError(
      'HW_E_DELIVERY_AUTH',
      `${base}. The client is not authenticated: run '${cli} auth login' as the gateway's user (or set GH_TOKEN in <config_dir>/.env)`,
      { retryable: false },
    );
  }
  if (/HTTP 403|not accessible|permission|must have (push|write|admin)|forbidden/i.test(said)) {
    return new HookwiseError(
      'HW_E_DELIVERY_AUTH',
      `${base}. The account lacks write access: grant it write (or triage) permission on ${target.split('#')[0]}`,
      { retryable: false },
    );
  }
  if (/rate limit|HTTP 429|HTTP 5\d\d|timed? ?out|connection|network|could not resolve host|EOF/i.test(said)) {
    return new HookwiseError('HW_E_DELIVERY', `${base}. Looks transient; will retry`, { retryable: true });
  }
  if (/could not resolve to|not found|no pull requests? found|HTTP 404|HTTP 422/i.test(said)) {
    const issueHint = kind === 'pr' && NOT_A_PULL_REQUEST.test(said) ? ' (to comment on an issue, set deliver_extra.kind to issue or auto)' : '';
    return new HookwiseError('HW_E_DELIVERY_TARGET', `${base}. Check deliver_extra.repo and deliver_extra.pr_number${issueHint}`, { retryable: false });
  }
  return new HookwiseError('HW_E_DELIVERY', base, { retryable: true });
}

function cannotStart(err: NodeJS.ErrnoException, cli: string): HookwiseError {
  if (err.code === 'ENOENT') {
    return new HookwiseError(
      'HW_E_DELIVERY',
      `${ID}: GitHub's CLI '${cli}' was not found: install it (https://cli.github.com), make sure it is on the gateway's PATH, or set platforms.${ID}.cli_path to its full path`,
      { retryable: false },
    );
  }
  if (err.code === 'EACCES') {
    return new HookwiseError('HW_E_DELIVERY', `${ID}: '${cli}' is not executable by the gateway's user: fix its permissions or set platforms.${ID}.cli_path`, {
      retryable: false,
    });
  }
  return new HookwiseError('HW_E_DELIVERY', `${ID}: could not start '${cli}': ${err.message}`, { retryable: true });
}

/** The comments one delivery has posted so far, and the kind (pr or issue) the rest must use. */
interface PostedComments {
  kind: CommentKind;
  urls: string[];
}

/** For a deliverer used without a gateway (tests, embedding): this process's memory, a few hundred entries. */
class MemoryProgressKV implements ProgressKV {
  private readonly entries = new Map<string, unknown>();
  async get(key: string): Promise<unknown> {
    return this.entries.get(key);
  }
  async set(key: string, value: unknown): Promise<void> {
    this.entries.delete(key);
    this.entries.set(key, structuredClone(value));
    if (this.entries.size > 1000) this.entries.delete(this.entries.keys().next().value as string);
  }
  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }
}

export function createCommentDeliverer(options: CommentOptions, ctx: PluginContext): GithubDestination {
  // App mode (app_id set): comments over the REST API as the App; else the gh client. Either way a later comment
  // on the same pull request can continue a conversation (comment-conversation.ts).
  const app = openAppMode(options, ctx);
  if (app) return Object.assign(app.deliverer, { conversation: githubConversation });
  const cli = options.cli_path;
  // The client reads its own credentials (GH_TOKEN, its config); prompts would hang a headless gateway.
  const env: NodeJS.ProcessEnv = { ...process.env, ...ctx.env, GH_PROMPT_DISABLED: '1', NO_COLOR: '1', GH_NO_UPDATE_NOTIFIER: '1' };
  ctx.redact(env.GH_TOKEN);
  ctx.redact(env.GITHUB_TOKEN);
  // Per delivery to this destination (route + delivery id + destination): the comments already posted and the
  // kind they were posted with. In the gateway's store when it gives one, so a restart does not post them again.
  const sent: ProgressKV = ctx.progress ?? new MemoryProgressKV();
  const memos = ctx.memos ?? new LocalMemos();
  const timeoutMs = options.timeout_seconds * 1000;
  // Sticky comments and replies in review threads go through `gh api`, which can edit a comment and reply in a
  // thread (`gh pr comment` can do neither).
  const stickyApi: CommentApi = ghCommentApi({
    cli,
    env,
    timeoutMs,
    explain: (result, target) => explainFailure(result, cli, target, 'issue', `${cli} api`),
    cannotStart: (err) => cannotStart(err, cli),
  });
  return {
    conversation: githubConversation,
    // Without an App the github.* actions act with the token of the gateway's environment (github-actions.ts).
    actionsClient: environmentClient(ctx),
    async deliver(msg, opts) {
      const { repo, prNumber, kind: kindOption, reviewCommentId } = resolveCommentTarget(msg.extra);
      const target = `${repo}#${prNumber}`;
      if (!msg.text.trim()) throw new HookwiseError('HW_E_DELIVERY', `${ID}: the agent's answer is empty; nothing to post`, { retryable: false });
      if (reviewCommentId) {
        // A reply in a review thread goes through `gh api` (`gh pr comment` cannot reply in a thread).
        const key = progressKey(ID, msg.route, msg.deliveryId, msg.destination);
        const bodies = chunkText(msg.text, COMMENT_LIMIT);
        const ids = await deliverReviewReplies({
          api: stickyApi,
          progress: sent,
          key,
          repo,
          number: prNumber,
          commentId: reviewCommentId,
          bodies,
          signal: opts.signal,
        });
        return { target, ids };
      }
      const sticky = stickyKey(msg.extra);
      if (sticky) {
        const memoKey = `${ID}:sticky:gh:${sticky}`;
        const body = stickyBody(msg.text);
        const done = await deliverSticky({ api: stickyApi, memos, memoKey, repo, number: prNumber, body, signal: opts.signal, logger: ctx.logger });
        ctx.logger.debug(`${ID}: ${done.created ? 'posted' : 'edited'} the sticky comment ${done.id} on ${target}`);
        return { target, ids: [done.url || done.id], sticky: done.created ? 'created' : 'edited' };
      }
      const bodies = chunkText(msg.text, COMMENT_LIMIT);
      const plan = planComment(kindOption, msg.event);
      const post = async (kind: CommentKind, body: string): Promise<ProcessResult> => {
        // Cancelled (gateway shutting down) before this comment started: post nothing, the job is retried later.
        if (opts.signal.aborted) throw new HookwiseError('HW_E_DELIVERY', `${ID}: delivery to ${target} cancelled before posting`, { retryable: true });
        const args = [kind, 'comment', String(prNumber), '--repo', repo, '--body-file', '-'];
        try {
          // The kit's runProcess hands the client's process group to the reaper, so a gateway killed with
          // SIGKILL does not leave it posting behind the restarted gateway's back.
          return await runProcess({ command: cli, args, env, input: body, timeoutMs: options.timeout_seconds * 1000, signal: opts.signal });
        } catch (err) {
          throw cannotStart(err as NodeJS.ErrnoException, cli);
        }
      };
      // Comments already posted for this delivery are not posted again when the job is retried, and the rest go
      // where the first one went.
      const key = progressKey(ID, msg.route, msg.deliveryId, msg.destination);
      const saved = (await sent.get(key)) as PostedComments | undefined;
      const done: PostedComments = saved ? { kind: saved.kind, urls: [...saved.urls] } : { kind: plan.kind, urls: [] };
      for (let i = done.urls.length; i < bodies.length; i++) {
        let result = await post(done.kind, bodies[i]);
        if (result.exitCode !== 0 && plan.issueIfNotPullRequest && done.kind === 'pr' && NOT_A_PULL_REQUEST.test(result.stderr)) {
          ctx.logger.debug(`${ID}: ${target} is not a pull request; commenting on it as an issue`);
          done.kind = 'issue';
          result = await post(done.kind, bodies[i]);
        }
        if (result.exitCode !== 0) throw explainFailure(result, cli, target, done.kind);
        done.urls.push(result.stdout.trim().split('\n').pop() ?? '');
        // Saved before the next comment is posted: a restart resumes after this one.
        await sent.set(key, done, PROGRESS_TTL_MS);
        ctx.logger.debug(`${ID}: posted ${done.kind} comment ${i + 1}/${bodies.length} on ${target}`);
      }
      await sent.delete(key);
      return { target, ids: done.urls.filter(Boolean) };
    },
  };
}

export const commentDeliverer: DelivererContribution<CommentOptions, GithubDestination> = {
  kind: 'deliverer',
  id: ID,
  aliases: ['codehost_a_comment'],
  description:
    'Posts the answer as a GitHub pull-request or issue comment with the gh command-line client or as a GitHub App; optionally one sticky comment edited by later answers.',
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      enabled: { type: 'boolean' },
      cli_path: { type: 'string', minLength: 1, default: 'gh', description: 'The client to run: a name looked up on PATH or a full path.' },
      timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 600, default: 60, description: 'Longest one comment may take.' },
      ...appModeSchema,
    },
  },
  create: createCommentDeliverer,
  // github.comment, github.add_labels, github.review: performed for a route's agent with this destination's client.
  actions: GITHUB_ACTIONS,
};
