// The ingest step of conversations: after verification and parsing on the inbound route, before its
// transform and filters. A message that answers one the gateway delivered for a route with conversations becomes a
// new job on THAT route (same agent, sandbox, budget, destinations), or is ignored with its reason logged (not an
// allowed person, past ttl_hours or max_turns unless after_limit starts a new conversation then). Anything else
// goes on through the inbound route as any event.
// What a message answers is the source's to say (Source.replyOf); a source that cannot say costs one property look-up.
import { randomUUID } from 'node:crypto';
import type { AcceptOutcome, AcceptRequest, InboundReply } from '@hookwise/core';
import { errorMessage } from '@hookwise/core';
import type { Route } from '../routes/routes';
import { clipTurnText, type MessageRecord, type PendingTurn } from './conversation-records';
import { conversationKey, limitsOf, type Conversations } from './conversations';
import { acceptRequestOf, answerOutcome, JobRoutes } from '../ingest/accept-step';
import type { IngestRequest, IngestResult, PipelineDeps } from '../ingest/pipeline-contract';
import { STORE_CALL_TIMEOUT_MS, storeFailed, withinDeadline } from '../ingest/store-call';

/** Why a reply to a known message continues nothing; answered 200 (the platform must not retry it). */
type IgnoredWhy = 'conversation_route_gone' | 'conversation_not_allowed' | 'conversation_expired' | 'conversation_max_turns' | 'conversation_own_message';

export class ConversationStep {
  private readonly jobRoutes = new JobRoutes();

  constructor(private readonly conversations: Conversations) {}

  /**
   * Continues the conversation the reply answers, or ignores it with the reason logged. Undefined when the
   * message it answers is none the gateway knows: the inbound route handles it as any event.
   */
  async continue(
    deps: PipelineDeps,
    req: IngestRequest,
    inbound: Route,
    reply: InboundReply,
    deliveryId: string,
    event: string,
    payload: Record<string, unknown>,
    payloadJson: string | undefined,
    receivedAt: number,
    accept: (request: AcceptRequest) => Promise<AcceptOutcome>,
  ): Promise<IngestResult | undefined> {
    const { records } = this.conversations;
    let record: MessageRecord | undefined;
    let own: MessageRecord | undefined;
    try {
      record = await withinDeadline(records.message(reply.to), STORE_CALL_TIMEOUT_MS);
      // The gateway's own answer coming back as an event (a GitHub comment posted with a person's token) is no reply.
      if (record && reply.own) own = await withinDeadline(records.message(reply.own), STORE_CALL_TIMEOUT_MS);
    } catch (err) {
      return storeFailed(deps, inbound, err);
    }
    if (!record) return undefined;
    const route = deps.routes.get(record.route);
    const where = `${reply.from}'s reply on route '${inbound.name}' to conversation ${record.conversation} of route '${record.route}'`;
    const ignored = (why: IgnoredWhy, reason: string): IngestResult => {
      deps.logger.info(`${where} ignored: ${reason}`, { route: inbound.name, delivery_id: deliveryId, conversation: record!.conversation, reason: why });
      return { status: 200, body: { status: 'ignored', event, reason: why } };
    };
    if (own) return ignored('conversation_own_message', `it is the gateway's own answer (job ${own.job})`);
    if (!route?.conversation?.enabled) return ignored('conversation_route_gone', `route '${record.route}' no longer exists or has conversations turned off`);
    const limits = limitsOf(route.conversation);
    const names = [reply.userId, ...(reply.alsoAllowedAs ?? [])];
    if (!limits.allow.includes('*') && !names.some((name) => limits.allow.includes(name))) {
      return ignored('conversation_not_allowed', `user ${reply.userId} is not in conversation.allow_from of route '${route.name}'`);
    }
    // Past ttl_hours or max_turns: ignored, or (after_limit: new_conversation) the reply starts a new conversation.
    let over: [IgnoredWhy, string] | undefined;
    let answers = record.turn;
    if (Date.now() - record.at > limits.ttlMs) {
      over = ['conversation_expired', `the answer it replies to is older than conversation.ttl_hours (${limits.ttlMs / 3_600_000} h)`];
    } else {
      try {
        answers = (await withinDeadline(records.log(record.conversation), STORE_CALL_TIMEOUT_MS))?.answers ?? record.turn;
      } catch (err) {
        return storeFailed(deps, inbound, err);
      }
      if (answers >= limits.maxTurns) over = ['conversation_max_turns', `the conversation has its ${limits.maxTurns} turns (conversation.max_turns)`];
    }
    if (over && limits.afterLimit !== 'new_conversation') return ignored(...over);

    // The job's delivery id names the inbound route and update: the platform's retry of the same message is a
    // duplicate on the conversation's route, and never collides with that route's own events.
    const jobDeliveryId = `${inbound.name}:${deliveryId}`;
    const text = clipTurnText(reply.text);
    // The person's message goes with the turn only where it is in the chat of what it answered.
    const message = reply.message && reply.message.platform === reply.to.platform && reply.message.chat === reply.to.chat ? reply.message : undefined;
    const answered = { replyTo: reply.to, ...(message ? { message } : {}), destination: record.destination, from: reply.from, text, at: receivedAt };
    const turn: PendingTurn = over
      ? { conversation: randomUUID(), turn: 1, fresh: true, ...answered }
      : { conversation: record.conversation, turn: answers + 1, ...answered };
    if (over) {
      deps.logger.info(`${where} is past its limits (${over[1]}): it starts conversation ${turn.conversation} (conversation.after_limit)`, {
        route: route.name,
        delivery_id: jobDeliveryId,
        conversation: turn.conversation,
        reason: over[0],
      });
    }
    let result: AcceptOutcome;
    try {
      // Written before the job exists, so the worker never runs the job without its turn.
      await withinDeadline(records.savePending(route.name, jobDeliveryId, turn, limits.keepMs), STORE_CALL_TIMEOUT_MS);
      const request = acceptRequestOf(route, deps.limits, jobDeliveryId, event, payload, payloadJson, this.jobRoutes.of(route));
      // The route's keys are for its events, not for replies: a reply never joins another job's coalesce window,
      // and the replies of one conversation run one at a time (the turn each takes is settled when it runs).
      if (request.job) {
        delete request.job.coalesce;
        request.job.concurrencyKey = conversationKey(turn.conversation);
      }
      result = await withinDeadline(accept(request), STORE_CALL_TIMEOUT_MS);
    } catch (err) {
      deps.logger.warn(`${where} could not be stored: ${errorMessage(err)}`, { route: inbound.name, delivery_id: deliveryId });
      return storeFailed(deps, route, err);
    }
    deps.storeStatus?.succeeded('accept');
    const answer = answerOutcome(deps, route, req, result, jobDeliveryId, event, receivedAt, undefined);
    if (result.outcome === 'accepted') {
      deps.logger.info(`${where} ${turn.fresh ? 'starts' : 'continues'} conversation ${turn.conversation} as turn ${turn.turn} (job ${result.jobId})`, {
        route: route.name,
        delivery_id: jobDeliveryId,
        conversation: turn.conversation,
      });
      if (typeof answer.body === 'object') Object.assign(answer.body, { conversation: turn.conversation, turn: turn.turn });
      if (deps.lifecycle?.has('conversation_continued')) {
        deps.lifecycle.emit('conversation_continued', {
          jobId: result.jobId,
          route: route.name,
          inboundRoute: inbound.name,
          deliveryId: jobDeliveryId,
          conversation: turn.conversation,
          turn: turn.turn,
          platform: reply.to.platform,
          from: reply.from,
        });
      }
    }
    return answer;
  }
}
