// Where conversations join the gateway's paths. On the request path, a message that answers one of the gateway's
// answers (Source.replyOf) continues that answer's route (conversation-replies.ts). On the job path, a job of a
// route with `conversation.enabled` settles its turn before its run, is prompted with the history, runs with the
// conversation's session, answers in the thread and records what it sent; its turn is read once and carried.
import type { AgentResult, Deliverer, Job } from '@hookwise/core';
import type { Logger } from 'winston';
import type { IngestHook } from '../ingest/ingest-hooks';
import type { JobHook, JobPart } from '../jobs/job-hooks';
import type { Route } from '../routes/routes';
import type { ConversationStep } from './conversation-replies';
import type { PendingTurn } from './conversation-records';
import { runConversation, type RunConversation } from './conversation-sessions';
import { replyExtra, type Conversations } from './conversations';

/** Replies to the gateway's answers, taken on whichever route they arrive and continued on their conversation's. */
export function conversationReplies(step: ConversationStep): IngestHook {
  return {
    name: 'conversations',
    event(seen) {
      const reply = seen.source?.source.replyOf?.(seen.payload);
      if (!reply) return undefined;
      return step
        .continue(seen.deps, seen.req, seen.route, reply, seen.deliveryId, seen.event, seen.payload, seen.payloadJson, seen.receivedAt, seen.accept)
        .then((answer) => (answer ? { answer } : undefined));
    },
  };
}

/** The job side: a part for each job of a route with conversations. */
export function conversationTurns(conversations: Conversations, logger: Logger): JobHook {
  return {
    name: 'conversations',
    partFor: (route, job) => (route.conversation?.enabled ? new ConversationPart(conversations, logger, route, job) : undefined),
  };
}

class ConversationPart implements JobPart {
  /** The turn this job takes: read once, replaced when the run settles it. */
  private turn?: Promise<PendingTurn | undefined>;
  private run?: RunConversation;

  constructor(
    private readonly conversations: Conversations,
    private readonly logger: Logger,
    private readonly route: Route,
    private readonly job: Job,
  ) {}

  private current(): Promise<PendingTurn | undefined> {
    return (this.turn ??= this.conversations.turnOf(this.route, this.job));
  }

  async skipReason(): Promise<string | undefined> {
    const settled = await this.conversations.settleTurn(this.route, this.job, await this.current());
    this.turn = Promise.resolve(settled.turn);
    return settled.skip;
  }

  async prompt(): Promise<string | undefined> {
    return this.conversations.promptOf(this.route, await this.current());
  }

  async task() {
    this.run = await runConversation(this.conversations, this.route, this.job, this.logger, await this.current());
    return { conversation: this.run.task };
  }

  async afterRun(result: AgentResult): Promise<void> {
    await this.run?.finished(result);
  }

  async extraFor(deliverer: Pick<Deliverer, 'conversation'>, extra: Record<string, string>, destination: string): Promise<Record<string, string>> {
    return replyExtra(await this.current(), deliverer, extra, destination);
  }

  async delivered(answer: string, deliverer: Pick<Deliverer, 'conversation'>, receipt: unknown, destination: string): Promise<void> {
    await this.conversations.delivered(this.route, this.job, answer, deliverer, receipt, await this.current(), destination);
  }
}
