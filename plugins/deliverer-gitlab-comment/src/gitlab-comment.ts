// gitlab_comment: posts the agent's answer as a GitLab merge-request or issue note over the REST API (v4), with a
// personal, project or group access token; `api_base` for a self-managed GitLab. Answers over GitLab's note limit are
// split into several notes, and a retried delivery does not post again the notes it already posted. With
// `deliver_extra.sticky` the answer edits the note an earlier answer for the same key posted (sticky-note.ts).
import { HookwiseError, SecretScrubber, isHookwiseError, type DelivererContribution, type MemoKV, type PluginContext, type ProgressKV } from '@hookwise/core';
import { PROGRESS_TTL_MS, chunkText, progressKey } from '@hookwise/kit/platform';
import { gitlabNote, type GitlabDestination } from './gitlab-actions';
import { gitlabConversation } from './note-conversation';
import { describeTarget, resolveNoteTarget } from './note-target';
import { ID, NotesApi, type NotesApiOptions } from './notes-api';
import { postSticky, type StickyOutcome } from './sticky-note';

export type GitlabCommentOptions = NotesApiOptions;

/** GitLab refuses note bodies over 1,000,000 characters. */
export const NOTE_LIMIT = 1_000_000;

/** The notes one delivery has posted so far (their ids, in order). */
interface PostedNotes {
  ids: number[];
  /** With deliver_extra.sticky: whether the first part created the sticky note or edited it. */
  sticky?: StickyOutcome;
}

/** For a deliverer used without a gateway (tests, embedding): this process's memory, the last 1000 entries. */
class MemoryKV<V> {
  private readonly entries = new Map<string, V>();
  async get(key: string): Promise<V | undefined> {
    return this.entries.get(key);
  }
  async set(key: string, value: V): Promise<void> {
    this.entries.delete(key);
    this.entries.set(key, structuredClone(value));
    if (this.entries.size > 1000) this.entries.delete(this.entries.keys().next().value as string);
  }
  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }
}

export function createGitlabCommentDeliverer(options: GitlabCommentOptions, ctx: PluginContext): GitlabDestination {
  // Registered so that no log line or error message ever carries it.
  ctx.redact(options.token);
  const api = new NotesApi(options, new SecretScrubber([options.token]));
  // Per delivery to this destination: the notes already posted, in the gateway's store when it gives one.
  const sent: ProgressKV = ctx.progress ?? new MemoryKV<unknown>();
  // Sticky notes' ids across jobs: the gateway's memos (durable with SQLite and Redis), else this process's memory.
  const memos: MemoKV = ctx.memos ?? new MemoryKV<string>();
  return {
    // Comments on the same merge request or issue can continue a conversation (note-conversation.ts).
    conversation: gitlabConversation,
    // The gitlab.note action posts with this destination's token (gitlab-actions.ts).
    notesApi: api,
    async start() {
      try {
        await api.whoAmI(ctx.signal);
      } catch (err) {
        // Bad credentials stop the gateway now; an unreachable GitLab only warns (it may come back before an answer).
        if (isHookwiseError(err) && err.code === 'HW_E_DELIVERY_AUTH') throw err;
        ctx.logger.warn(`${ID}: could not check the token at startup: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
    async deliver(msg, { signal }) {
      const target = resolveNoteTarget(msg.extra);
      const where = describeTarget(target);
      if (!msg.text.trim()) throw new HookwiseError('HW_E_DELIVERY', `${ID}: the agent's answer is empty; nothing to post on ${where}`, { retryable: false });
      const bodies = chunkText(msg.text, NOTE_LIMIT);
      const key = progressKey(ID, msg.route, msg.deliveryId, msg.destination);
      const saved = (await sent.get(key)) as PostedNotes | undefined;
      const done: PostedNotes = { ids: [...(saved?.ids ?? [])], sticky: saved?.sticky };
      const sticky = msg.extra?.sticky?.trim();
      for (let i = done.ids.length; i < bodies.length; i++) {
        // Cancelled (gateway shutting down) before this note: post nothing more, the job is retried later.
        if (signal.aborted) throw new HookwiseError('HW_E_DELIVERY', `${ID}: delivery to ${where} cancelled before posting`, { retryable: true });
        // The sticky note is the first part; an answer over the note limit continues in plain notes below it.
        if (sticky && i === 0) {
          const posted = await postSticky(api, memos, target, sticky, bodies[i], signal);
          done.ids.push(posted.id);
          done.sticky = posted.outcome;
        } else {
          done.ids.push((await api.create(target, bodies[i], signal)).id);
        }
        // Saved before the next note is posted: a retry resumes after this one.
        await sent.set(key, done, PROGRESS_TTL_MS);
        ctx.logger.debug(`${ID}: posted note ${done.ids[i]} (${i + 1}/${bodies.length}) on ${where}`);
      }
      await sent.delete(key);
      return { target: where, ids: done.ids.map(String), ...(done.sticky ? { sticky: done.sticky } : {}) };
    },
  };
}

export const gitlabCommentDeliverer: DelivererContribution<GitlabCommentOptions, GitlabDestination> = {
  kind: 'deliverer',
  id: ID,
  description: 'Posts the answer as a GitLab merge-request or issue note over the REST API.',
  // Switched on with platforms.gitlab_comment.enabled and its token, like the messaging platforms.
  requiresEnabled: true,
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['token'],
    properties: {
      enabled: { type: 'boolean' },
      token: {
        type: 'string',
        minLength: 1,
        description: 'A personal, project or group access token with the api scope, sent as PRIVATE-TOKEN (use ${GITLAB_TOKEN} and .env).',
      },
      api_base: { type: 'string', pattern: '^https?://', default: 'https://gitlab.com', description: 'The GitLab instance; set it for a self-managed GitLab.' },
      timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 600, default: 30, description: 'Longest one request may take.' },
    },
  },
  create: createGitlabCommentDeliverer,
  // gitlab.note: performed for a route's agent with this destination's token.
  actions: [gitlabNote],
};
