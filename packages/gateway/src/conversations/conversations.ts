// The job side of conversations: a delivered answer of a route with `conversation: {enabled: true}` is
// recorded (message ids -> conversation, the turn appended to its log); a job that continues a conversation gets
// the earlier turns rendered into its prompt (every runner understands a prompt; resuming a CLI's own session is
// a later step) and its answer is sent as a reply in the same thread. Routes without conversations never get here:
// their job hook (conversation-hooks.ts) gives a part only to routes with `conversation.enabled`.
import { randomUUID } from 'node:crypto';
import type { Deliverer, DelivererConversation, Job, JobQueue, MemoKV } from '@hookwise/core';
import { errorMessage } from '@hookwise/core';
import type { Logger } from 'winston';
import { DEFAULT_MAX_TURNS, DEFAULT_TTL_HOURS, type ConversationConfig } from '../config/conversation-schema';
import type { Route } from '../routes/routes';
import { cleanText, promptHygieneOf } from '../jobs/prompt-hygiene';
import { conversationOfJob, type ConversationView } from './conversation-view';
import { ConversationRecords, clipTurnText, type ConversationLog, type MessageRef, type PendingTurn, type Turn } from './conversation-records';

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
  /** What a reply past max_turns or ttl_hours does. */
  afterLimit: 'ignore' | 'new_conversation';
}

export function limitsOf(config: ConversationConfig): ConversationLimits {
  const ttlMs = (config.ttl_hours ?? DEFAULT_TTL_HOURS) * 3_600_000;
  return {
    maxTurns: config.max_turns ?? DEFAULT_MAX_TURNS,
    ttlMs,
    keepMs: 2 * ttlMs,
    allow: (config.allow_from ?? []).map(String),
    afterLimit: config.after_limit ?? 'ignore',
  };
}

/**
 * A destination's deliver_extra for the answer of a continued conversation: on the conversation's platform, the
 * deliverer's facet sends it as a reply to the person's message (Telegram `reply_parameters`; the message their
 * reply answered where the source names no message of its own), into its thread (Slack `thread_ts`) or under it
 * (Matrix `m.relates_to`, one more comment on the pull request).
 */
export function replyExtra(
  turn: PendingTurn | undefined,
  deliverer: Pick<Deliverer, 'conversation'>,
  extra: Record<string, string>,
  destination?: string,
): Record<string, string> {
  const facet = deliverer.conversation;
  if (!turn || !facet || facet.platform !== turn.replyTo.platform) return extra;
  // Two destinations on one platform (telegram, telegram#2): only the one that sent the message answered replies;
  // the other gets the answer where it always does.
  if (turn.destination !== undefined && destination !== undefined && turn.destination !== destination) return extra;
  // The answer quotes the person's message where its source named it, else the message their reply answered.
  return facet.replyExtra(turn.message ?? turn.replyTo, extra);
}

/** The messages a destination's receipt says it created, that a reply may answer (the facet's reading, else each id in the target). */
function sentRefs(facet: DelivererConversation, receipt: unknown): { chat: string; refs: MessageRef[] } | undefined {
  const r = receipt as { target?: unknown; ids?: unknown } | undefined;
  const target = typeof r?.target === 'string' ? r.target : undefined;
  const ids = Array.isArray(r?.ids) ? r.ids.filter((id): id is string => typeof id === 'string' && id !== '') : [];
  if (facet.sentRefs) return facet.sentRefs({ target, ids });
  if (target === undefined || !ids.length) return undefined;
  // The chat's latest answer too (id ''), where the platform's messages name none they answer (MessageRef).
  const refs = [...ids, ...(facet.byChat ? [''] : [])].map((messageId) => ({ platform: facet.platform, chat: target, messageId }));
  return { chat: target, refs };
}

/** The concurrency key of the jobs that continue a conversation: they run one at a time, in the order accepted. */
export function conversationKey(conversation: string): string {
  return `conversation:${conversation}`;
}

/** Whether a job continued a conversation (a person's reply): the concurrency key the conversation step gave it. */
export function isConversationReplyJob(job: { concurrencyKey?: string }): boolean {
  return job.concurrencyKey?.startsWith('conversation:') ?? false;
}

export interface ConversationsDeps {
  memos: MemoKV;
  jobs: Pick<JobQueue, 'get'>;
  logger: Logger;
  now?: () => number;
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
   * Settles, when its job runs, the turn a reply takes. Jobs of one conversation run one at a time (their
   * concurrency key is conversationKey), so the log read here is the conversation as it stands: two replies
   * accepted at the same moment both expected the same turn, and the later one becomes the next. If the
   * conversation used its max_turns meanwhile, the reply is skipped (`skip` says why) or, with after_limit:
   * new_conversation, starts a new conversation. The settled turn is saved for the steps that read it after.
   */
  async settle(route: Route, job: Pick<Job, 'deliveryId'>): Promise<{ skip?: string }> {
    const { skip } = await this.settleTurn(route, job, await this.turnOf(route, job));
    return skip ? { skip } : {};
  }

  /** settle() for a turn read already: answers the turn as settled (the one to use from now on), or why to skip. */
  async settleTurn(route: Route, job: Pick<Job, 'deliveryId'>, turn: PendingTurn | undefined): Promise<{ skip?: string; turn?: PendingTurn }> {
    if (!turn || turn.fresh || !route.conversation) return { turn };
    const limits = limitsOf(route.conversation);
    const answers = (await this.records.log(turn.conversation))?.answers ?? turn.turn - 1;
    let settled: PendingTurn;
    if (answers < limits.maxTurns) {
      if (answers + 1 === turn.turn) return { turn };
      settled = { ...turn, turn: answers + 1 };
    } else if (limits.afterLimit === 'new_conversation') {
      settled = { ...turn, conversation: randomUUID(), turn: 1, fresh: true };
    } else {
      return { skip: `conversation ${turn.conversation} used its ${limits.maxTurns} turns (conversation.max_turns) while this reply waited` };
    }
    await this.records.savePending(route.name, job.deliveryId, settled, limits.keepMs);
    this.deps.logger.info(
      settled.fresh
        ? `conversation ${turn.conversation} on route '${route.name}' used its ${limits.maxTurns} turns while ${job.deliveryId} waited: it starts conversation ${settled.conversation} (conversation.after_limit)`
        : `conversation ${turn.conversation} on route '${route.name}': ${job.deliveryId} is turn ${settled.turn} (another reply took turn ${turn.turn})`,
      { route: route.name, delivery_id: job.deliveryId, conversation: settled.conversation },
    );
    return { turn: settled };
  }

  /**
   * The prompt of a job that continues a conversation: the earlier turns (the first event's prompt, the answers,
   * the replies) and the new reply. Undefined for any other job, which gets the route's prompt.
   */
  async promptFor(route: Route, job: Pick<Job, 'deliveryId'>): Promise<string | undefined> {
    return this.promptOf(route, await this.turnOf(route, job));
  }

  /** promptFor() for a turn read already. */
  async promptOf(route: Route, turn: PendingTurn | undefined): Promise<string | undefined> {
    if (!turn) return undefined;
    const log = await this.records.log(turn.conversation);
    const clean = promptHygieneOf(route) ? cleanText : (text: string) => text;
    const max = limitsOf(route.conversation ?? {}).maxTurns;
    if (turn.fresh) {
      return [
        `This starts a new conversation (the earlier one reached its limits); your answer will be turn 1 of at most ${max}.`,
        '',
        `--- Message from ${turn.from} ---`,
        clean(turn.text),
        '',
        'Answer this message; your answer is sent back as a reply in the same thread.',
      ].join('\n');
    }
    const lines = [`This continues a conversation: your answer will be turn ${turn.turn} of at most ${max}. The earlier turns, oldest first:`, ''];
    for (const t of log?.turns ?? []) lines.push(...turnLines(t, clean), '');
    if (!log) lines.push('(the earlier turns are no longer kept)', '');
    lines.push(`--- New reply from ${turn.from} ---`, clean(turn.text), '', 'Answer this reply; your answer is sent back as a reply in the same conversation.');
    return lines.join('\n');
  }

  /**
   * After a destination took the answer: its messages are recorded as part of the conversation (the job's own
   * conversation when it started one), and the turn joins the conversation's log. Never throws: the answer is
   * delivered, so a failure here is logged and only means replies to it start nothing.
   */
  async delivered(
    route: Route,
    job: Job,
    answer: string,
    deliverer: Pick<Deliverer, 'conversation'>,
    receipt: unknown,
    turn: PendingTurn | undefined,
    destination?: string,
  ): Promise<void> {
    const facet = deliverer.conversation;
    if (!route.conversation?.enabled || !facet) return;
    const limits = limitsOf(route.conversation);
    try {
      const sent = sentRefs(facet, receipt);
      if (!sent) return;
      const { chat, refs } = sent;
      const platform = facet.platform;
      const log = await this.logFor(route, job, platform, chat, turn);
      if (!log.jobs.includes(job.id)) {
        if (turn) log.turns.push({ kind: 'reply', text: clipTurnText(turn.text), at: turn.at, from: turn.from });
        log.turns.push({ kind: 'answer', text: clipTurnText(answer), at: this.now() });
        log.answers += 1;
        log.jobs.push(job.id);
        await this.records.saveLog(log, limits.keepMs);
      }
      const record = { route: route.name, job: job.id, conversation: log.id, turn: log.answers, at: this.now(), destination };
      for (const ref of refs) await this.records.saveMessage(ref, record, limits.keepMs);
      this.deps.logger.debug(
        `conversation ${log.id} on route '${route.name}': turn ${log.answers} sent to ${platform} chat ${chat} (${refs.map((r) => r.messageId || '(latest)').join(', ')})`,
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
