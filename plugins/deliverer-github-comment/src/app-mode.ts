// github_comment as a GitHub App (app_id + private key): comments over the REST API with an installation token
// (createGithubClient), the installation taken from deliver_extra.installation_id (e.g. "{installation.id}") or
// looked up for the repository. Long answers are split like the gh path's; sticky comments are edited in place.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { HookwiseError, type PluginContext, type ProgressKV } from '@hookwise/core';
import { PROGRESS_TTL_MS, chunkText, progressKey } from '@hookwise/kit/platform';
import { restCommentApi } from './comment-api';
import type { GithubDestination } from './github-actions';
import { resolveCommentTarget } from './comment-target';
import { DEFAULT_API_BASE, createGithubClient, type GithubClient } from './github-client';
import { deliverReviewReplies } from './review-reply';
import { LocalMemos, deliverSticky, stickyBody, stickyKey } from './sticky-comment';

const ID = 'github_comment';
const LIMIT = 65536;

export interface AppModeOptions {
  app_id?: string | number;
  private_key_file?: string;
  private_key_env?: string;
  api_base?: string;
}

/** The options schema's App-mode properties (merged into the deliverer's schema). */
export const appModeSchema = {
  app_id: {
    anyOf: [
      { type: 'integer', minimum: 1 },
      { type: 'string', pattern: '^[1-9][0-9]*$' },
    ],
    description: "The GitHub App's id: comments are posted as the App instead of through gh.",
  },
  private_key_file: { type: 'string', minLength: 1, description: "The App's private key (.pem), relative to the config dir." },
  private_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: "The environment variable holding the App's private key (PEM)." },
  api_base: {
    type: 'string',
    pattern: '^https?://',
    description: `The REST API's base: ${DEFAULT_API_BASE} (default), or https://<host>/api/v3 for GitHub Enterprise Server.`,
  },
} as const;

/** The App's private key from the file or the variable the options name; errors say which option to fix. */
export function readPrivateKey(options: AppModeOptions, ctx: Pick<PluginContext, 'configDir' | 'env'>): string {
  const where = `platforms.${ID}`;
  if (options.private_key_file && options.private_key_env) {
    throw new HookwiseError('HW_E_CONFIG', `${where}: set private_key_file or private_key_env, not both`, { retryable: false });
  }
  let key: string;
  if (options.private_key_file) {
    const file = path.resolve(ctx.configDir, options.private_key_file);
    try {
      key = readFileSync(file, 'utf8');
    } catch (err) {
      throw new HookwiseError(
        'HW_E_CONFIG',
        `${where}.private_key_file: cannot read ${file} (${(err as Error).message}); download the key from the App's settings page`,
        {
          retryable: false,
        },
      );
    }
  } else if (options.private_key_env) {
    // A .env file holds the key on one line with its newlines written as \n.
    key = (ctx.env[options.private_key_env] ?? '').replace(/\\n/g, '\n');
    if (!key.trim()) {
      throw new HookwiseError(
        'HW_E_CONFIG',
        `${where}.private_key_env: ${options.private_key_env} is not set or empty; put the App's private key (PEM) there`,
        {
          retryable: false,
        },
      );
    }
  } else {
    throw new HookwiseError('HW_E_CONFIG', `${where}.app_id is set without a private key: set private_key_file or private_key_env`, { retryable: false });
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) {
    throw new HookwiseError('HW_E_CONFIG', `${where}: the App's private key is not a PEM private key ("-----BEGIN RSA PRIVATE KEY-----" ...)`, {
      retryable: false,
    });
  }
  return key;
}

/** App mode's deliverer and its client, or undefined when app_id is not set (the gh path). */
export function openAppMode(options: AppModeOptions, ctx: PluginContext): { deliverer: GithubDestination; client: GithubClient } | undefined {
  if (options.app_id === undefined || options.app_id === '') {
    if (options.private_key_file || options.private_key_env) {
      throw new HookwiseError('HW_E_CONFIG', `platforms.${ID}: a private key is set without app_id: set app_id (the App's id) or remove the key`, {
        retryable: false,
      });
    }
    return undefined;
  }
  const privateKey = readPrivateKey(options, ctx);
  ctx.redact(privateKey);
  const client = createGithubClient({
    apiBase: options.api_base,
    app: { appId: String(options.app_id), privateKey },
    name: ID,
    warn: (message) => ctx.logger.warn(message),
  });
  const memos = ctx.memos ?? new LocalMemos();
  const progress: ProgressKV | undefined = ctx.progress;
  const who = `app:${options.app_id}@${new URL(client.apiBase).host}`;
  const deliverer: GithubDestination = {
    // The route actions' github.* calls go through the same App (github-actions.ts).
    actionsClient: client,
    async deliver(msg, opts) {
      const { repo, prNumber, reviewCommentId } = resolveCommentTarget(msg.extra);
      const target = `${repo}#${prNumber}`;
      if (!msg.text.trim()) throw new HookwiseError('HW_E_DELIVERY', `${ID}: the agent's answer is empty; nothing to post`, { retryable: false });
      const api = restCommentApi(client, { installationId: msg.extra?.installation_id?.trim() || undefined, repo }, ID);
      if (reviewCommentId) {
        const key = progressKey(ID, msg.route, msg.deliveryId, msg.destination);
        const bodies = chunkText(msg.text, LIMIT);
        const ids = await deliverReviewReplies({ api, progress, key, repo, number: prNumber, commentId: reviewCommentId, bodies, signal: opts.signal });
        return { target, ids };
      }
      const sticky = stickyKey(msg.extra);
      if (sticky) {
        const body = stickyBody(msg.text, LIMIT);
        const done = await deliverSticky({
          api,
          memos,
          memoKey: `${ID}:sticky:${who}:${sticky}`,
          repo,
          number: prNumber,
          body,
          signal: opts.signal,
          logger: ctx.logger,
        });
        return { target, ids: [done.url || done.id], sticky: done.created ? 'created' : 'edited' };
      }
      // Parts already posted for this delivery are not posted again when the job is retried.
      const bodies = chunkText(msg.text, LIMIT);
      const key = progressKey(ID, msg.route, msg.deliveryId, msg.destination);
      const urls = ((await progress?.get(key)) as { urls: string[] } | undefined)?.urls.slice() ?? [];
      for (let i = urls.length; i < bodies.length; i++) {
        urls.push((await api.create(repo, prNumber, bodies[i], opts.signal)).url);
        await progress?.set(key, { kind: 'issue', urls }, PROGRESS_TTL_MS);
      }
      await progress?.delete(key);
      return { target, ids: urls.filter(Boolean) };
    },
  };
  return { deliverer, client };
}
