// The job side of conversations (issue 31): a delivered answer of a route with `conversation: {enabled: true}` is
// recorded (message ids -> conversation, the turn appended to its log); a job that continues a conversation gets
// the earlier turns rendered into its prompt (every runner understands a prompt; resuming a CLI's own session is
// a later step) and its answer is sent as a reply in the same thread. Routes without conversations never get here:
// the hooks in agent-step.ts and fan-out.ts test `route.conversation?.enabled` first.
import type { Job, JobQueue, MemoKV } from '@hookwise/core';
import { errorMessage } from '@hookwise/core';
import type { Logger } from 'winston';
import { DEFAULT_MAX_TURNS, DEFAULT_TTL_HOURS, type ConversationConfig } from '../config/conversation-schema';
import type { Route } from '../routes/routes';
import { cleanText, promptHygieneOf } from './prompt-hygiene';
import { conversationOfJob, type ConversationView } from './conversation-view';
import { ConversationRecords, clipTurnText, type ConversationLog, type MessageRef, type PendingTurn, type Turn } from './conversation-records';

/** The deliverers whose messages can be answered, by their ids (aliases are resolved by the registry first). */
const PLATFORM_OF: Record<string, string> = {
  telegram: 'telegram',
  slack: 'slack',
  matrix: 'matrix',
  github_comment: 'github',
};

/**
 * The conversation platform of a destination's `to` (`slack#2` counts as slack), or undefined; `canonical` turns
 * an alias (`platform_01`) into its deliverer's id, as the plugin registry declares it.
 */
export function platformOf(deliverTo: string, canonical: (id: string) => string = (id) => id): string | undefined {
  return PLATFORM_OF[canonical(deliverTo.split('#')[0])];
}

export interface ConversationLimits {
  maxTurns: number;
  ttlMs: number;
  /**
   * How long records are kept: twice the ttl, so that a reply that comes late is still recognised and ignored
   * with its reason logged; after that, a reply answers nothing the gateway knows and goes to its own route.
   */
  keepMs: number;
  /** allow_from as strings; '*' allows anyone who can reply there. */
  allow: string[];
}

export function limitsOf(config: ConversationConfig): ConversationLimits {
  const ttlMs = (config.ttl_hours ?? DEFAULT_TTL_HOURS) * 3_600_000;
  return { maxTurns: config.max_turns ?? DEFAULT_MAX_TURNS, ttlMs, keepMs: 2 * ttlMs, allow: (config.allow_from ?? []).map(String) };
}

/**
 * A destination's deliver_extra for the answer of a continued conversation: on the conversation's platform, the
 * answer replies to the message the person answered (Telegram `reply_to_message_id`, read by the deliverer as
 * `reply_parameters`) or goes into its thread (Slack `thread_ts`), in the conversation's chat.
 */
export function replyExtra(
  turn: PendingTurn | undefined,
  deliverTo: string,
  extra: Record<string, string>,
  canonical?: (id: string) => string,
): Record<string, string> {
  if (!turn || platformOf(deliverTo, canonical) !== turn.replyTo.platform) return extra;
  const { chat, messageId } = turn.replyTo;
  const out: Record<string, string> = { ...extra };
  // GitHub: the answer is one more comment on the same pull request or issue (sticky or not, as the route says).
  if (turn.replyTo.platform === 'github') return { ...out, repo: chat, pr_number: messageId };
  // A chat_id is set to the conversation's chat (it was delivered there); a route using its home channel keeps it.
  if (out.chat_id !== undefined) out.chat_id = chat;
  if (turn.replyTo.platform === 'slack') out.thread_ts = messageId;
  else if (turn.replyTo.platform === 'matrix') out.reply_to_event_id = messageId;
  else out.reply_to_message_id = messageId;
  return out;
}

/** What a deliverer's receipt says of the messages it created: the chat and the ids (the kit's PlatformReceipt). */
function sentMessages(receipt: unknown): { chat: string; ids: string[] } | undefined {
  const r = receipt as { target?: unknown; ids?: unknown } | undefined;
  if (typeof r?.target !== 'string' || !Array.isArray(r.ids)) return undefined;
  const ids = r.ids.filter((id): id is string => typeof id === 'string' && id !== '');
  return ids.length ? { chat: r.target, ids } : undefined;
}

/**
 * The messages a reply may answer. GitHub's receipt says `owner/name#12` and the comment URLs: a later comment
 * answers the pull request (no comment is replied to), recorded as chat `owner/name` (lower-cased, as GitHub
 * matches it) and id `12`; the comment URLs are recorded too, so that the gateway's own comment coming back as
 * an issue_comment event is known as its own. Elsewhere each message id in the receipt's chat.
 */
function sentRefs(platform: string, sent: { chat: string; ids: string[] }): { chat: string; refs: MessageRef[] } {
  const pr = platform === 'github' ? /^(.+)#(\d+)$/.exec(sent.chat) : null;
  if (!pr) return { chat: sent.chat, refs: sent.ids.map((messageId) => ({ platform, chat: sent.chat, messageId })) };
  const chat = pr[1].toLowerCase();
  return { chat: `${chat}#${pr[2]}`, refs: [pr[2], ...sent.ids].map((messageId) => ({ platform, chat, messageId })) };
}

export interface ConversationsDeps {
  memos: MemoKV;
  jobs: Pick<JobQueue, 'get'>;
  logger: Logger;
  now?: () => number;
  /** A deliverer alias to its id (the plugin registry's canonicalId); default: ids are taken as written. */
  canonicalDeliverer?: (id: string) => string;
}

export class Conversations {
  readonly records: ConversationRecords;
  private readonly now: () => number;

  constructor(private readonly deps: ConversationsDeps) {
    this.records = new ConversationRecords(deps.memos);
    this.now = deps.now ?? Date.now;
  }

  /** What `deliveries show` and the dashboard show of a job's conversation (conversation-view.ts); undefined: none. */
  ofJob(job: Pick<Job, 'id' | 'route' | 'deliveryId'>): Promise<ConversationView | undefined> {
    return conversationOfJob(this.records, job);
  }

  /** The turn a job continues, or undefined for a job that starts a conversation (or a route without them). */
  async turnOf(route: Route, job: Pick<Job, 'deliveryId'>): Promise<PendingTurn | undefined> {
    if (!route.conversation?.enabled) return undefined;
    try {
      return await this.records.pending(route.name, job.deliveryId);
    } catch (err) {
      this.deps.logger.warn(`route '${route.name}': could not read the conversation of ${job.deliveryId}: ${errorMessage(err)}`, { route: route.name });
      return undefined;
    }
  }

  /**
   * The prompt of a job that continues a conversation: the earlier turns (the first event's prompt, the answers,
   * the replies) and the new reply. Undefined for any other job, which gets the route's prompt.
   */
  async promptFor(route: Route, job: Pick<Job, 'deliveryId'>): Promise<string | undefined> {
    const turn = await this.turnOf(route, job);
    if (!turn) return undefined;
    const log = await this.records.log(turn.conversation);
    const clean = promptHygieneOf(route) ? cleanText : (text: string) => text;
    const max = limitsOf(route.conversation ?? {}).maxTurns;
    const lines = [`This continues a conversation: your answer will be turn ${turn.turn} of at most ${max}. The earlier turns, oldest first:`, ''];
    for (const t of log?.turns ?? []) lines.push(...turnLines(t, clean), '');
    if (!log) lines.push('(the earlier turns are no longer kept)', '');
    lines.push(`--- New reply from ${turn.from} ---`, clean(turn.text), '', 'Answer this reply; your answer is sent back as a reply in the same conversation.');
    return lines.join('\n');
  }

  /** replyExtra with this gateway's deliverer aliases resolved. */
  replyExtra(turn: PendingTurn | undefined, deliverTo: string, extra: Record<string, string>): Record<string, string> {
    return replyExtra(turn, deliverTo, extra, this.deps.canonicalDeliverer);
  }

  /**
   * After a destination took the answer: its messages are recorded as part of the conversation (the job's own
   * conversation when it started one), and the turn joins the conversation's log. Never throws: the answer is
   * delivered, so a failure here is logged and only means replies to it start nothing.
   */
  async delivered(route: Route, job: Job, answer: string, deliverTo: string, receipt: unknown, turn: PendingTurn | undefined): Promise<void> {
    const platform = platformOf(deliverTo, this.deps.canonicalDeliverer);
    const sent = platform ? sentMessages(receipt) : undefined;
    if (!route.conversation?.enabled || !platform || !sent) return;
    const limits = limitsOf(route.conversation);
    try {
      const { chat, refs } = sentRefs(platform, sent);
      const log = await this.logFor(route, job, platform, chat, turn);
      if (!log.jobs.includes(job.id)) {
        if (turn) log.turns.push({ kind: 'reply', text: clipTurnText(turn.text), at: turn.at, from: turn.from });
        log.turns.push({ kind: 'answer', text: clipTurnText(answer), at: this.now() });
        log.answers += 1;
        log.jobs.push(job.id);
        await this.records.saveLog(log, limits.keepMs);
      }
      const record = { route: route.name, job: job.id, conversation: log.id, turn: log.answers, at: this.now() };
      for (const ref of refs) await this.records.saveMessage(ref, record, limits.keepMs);
      this.deps.logger.debug(
        `conversation ${log.id} on route '${route.name}': turn ${log.answers} sent to ${platform} chat ${sent.chat} (${sent.ids.join(', ')})`,
        {
          route: route.name,
          delivery_id: job.deliveryId,
        },
      );
    } catch (err) {
      this.deps.logger.warn(
        `route '${route.name}': the answer to ${job.deliveryId} was delivered but not recorded for its conversation (replies to it will start nothing): ${errorMessage(err)}`,
        { route: route.name, delivery_id: job.deliveryId },
      );
    }
  }

  /** The conversation this answer belongs to: the one its reply continues, else a new one named by the job. */
  private async logFor(route: Route, job: Job, platform: string, chat: string, turn: PendingTurn | undefined): Promise<ConversationLog> {
    if (turn) {
      const found = await this.records.log(turn.conversation);
      if (found) return found;
    }
    const id = turn?.conversation ?? job.id;
    // The first turn is the event as the agent saw it: the prompt saved with the answer.
    const prompt = turn ? undefined : (job.prompt ?? (await this.deps.jobs.get(job.id))?.prompt);
    const turns: Turn[] = prompt === undefined ? [] : [{ kind: 'event', text: clipTurnText(prompt), at: job.receivedAt ?? this.now() }];
    return { id, route: route.name, platform, chat, turns, answers: 0, jobs: [] };
  }
}

function turnLines(turn: Turn, clean: (text: string) => string): string[] {
  if (turn.kind === 'event') return ['--- The event (what you were first asked) ---', turn.text];
  if (turn.kind === 'answer') return ['--- Your answer ---', turn.text];
  return [`--- Reply from ${turn.from ?? 'someone'} ---`, clean(turn.text)];
}
