// Conversations as records in the store's memos (Store.memos: durable in SQLite, shared on Redis), so
// that no store needs a table of its own: which delivered message belongs to which conversation, each
// conversation's turns, and the reply a waiting job continues with. Keys start with `hookwise.conversation` (the
// memos are shared with plugins); parts are URI-encoded, so a chat or message id can never reach into another key.
import type { AgentTranscriptMessage, MemoKV, MessageRef } from '@hookwise/core';

export type { MessageRef };

/** What a delivered message is part of. */
export interface MessageRecord {
  route: string;
  job: string;
  conversation: string;
  /** How many answers the conversation held once this message was sent (the first answer is turn 1). */
  turn: number;
  /** When it was delivered (ms since the epoch): ttl_hours counts from here. */
  at: number;
  /** The route's destination that sent it (`telegram`, `telegram#2`): the one a continuing answer goes through. */
  destination?: string;
}

export interface Turn {
  kind: 'event' | 'answer' | 'reply';
  text: string;
  at: number;
  /** Who wrote a reply: platform, user id and name, for the prompt and the log. */
  from?: string;
}

export interface ConversationLog {
  id: string;
  route: string;
  platform: string;
  chat: string;
  turns: Turn[];
  /** Agent answers so far (max_turns bounds them). */
  answers: number;
  /** The jobs whose answers are in `turns`: a second destination or a retried delivery appends nothing again. */
  jobs: string[];
}

/** A reply accepted as the next turn, waiting for its job to run (keyed by the job's route and delivery id). */
export interface PendingTurn {
  conversation: string;
  /** The turn the job's answer will be. */
  turn: number;
  /** Set when the reply came past the limits of its conversation and starts this new one (after_limit). */
  fresh?: boolean;
  /** What the reply answered: the answer goes back as a reply to it (Telegram) or into its thread (Slack). */
  replyTo: MessageRef;
  /** The person's reply itself, when its source named it: the answer quotes it (InboundReply.message). */
  message?: MessageRef;
  /** The destination that sent what the reply answered; absent in records kept before it was recorded. */
  destination?: string;
  from: string;
  text: string;
  at: number;
}

/** Longest text kept per turn: a conversation's memo stays small whatever the payloads weigh. */
export const TURN_TEXT_LIMIT = 16_000;

const PREFIX = 'hookwise.conversation';
const part = (value: string) => encodeURIComponent(value);

export function clipTurnText(text: string): string {
  return text.length <= TURN_TEXT_LIMIT ? text : `${text.slice(0, TURN_TEXT_LIMIT)}\n[... ${text.length - TURN_TEXT_LIMIT} more characters not kept]`;
}

export class ConversationRecords {
  constructor(private readonly memos: MemoKV) {}

  message(ref: MessageRef): Promise<MessageRecord | undefined> {
    return this.read<MessageRecord>(messageKey(ref));
  }

  saveMessage(ref: MessageRef, record: MessageRecord, keepMs: number): Promise<void> {
    return this.memos.set(messageKey(ref), JSON.stringify(record), keepMs);
  }

  log(id: string): Promise<ConversationLog | undefined> {
    return this.read<ConversationLog>(`${PREFIX}.log:${part(id)}`);
  }

  saveLog(log: ConversationLog, keepMs: number): Promise<void> {
    return this.memos.set(`${PREFIX}.log:${part(log.id)}`, JSON.stringify(log), keepMs);
  }

  pending(route: string, deliveryId: string): Promise<PendingTurn | undefined> {
    return this.read<PendingTurn>(pendingKey(route, deliveryId));
  }

  savePending(route: string, deliveryId: string, turn: PendingTurn, keepMs: number): Promise<void> {
    return this.memos.set(pendingKey(route, deliveryId), JSON.stringify(turn), keepMs);
  }

  /** The CLI session the conversation's last run returned (AgentResult.session), for the next turn's resume. */
  async session(id: string): Promise<string | undefined> {
    return (await this.read<{ session?: string }>(`${PREFIX}.session:${part(id)}`))?.session;
  }

  saveSession(id: string, session: string, keepMs: number): Promise<void> {
    return this.memos.set(`${PREFIX}.session:${part(id)}`, JSON.stringify({ session }), keepMs);
  }

  /** An API runner's messages of the conversation (AgentTask.conversation.transcript). */
  async transcript(id: string): Promise<AgentTranscriptMessage[]> {
    const kept = await this.read<unknown>(`${PREFIX}.transcript:${part(id)}`);
    return Array.isArray(kept) ? kept.filter(isTranscriptMessage) : [];
  }

  saveTranscript(id: string, messages: AgentTranscriptMessage[], keepMs: number): Promise<void> {
    return this.memos.set(`${PREFIX}.transcript:${part(id)}`, JSON.stringify(messages), keepMs);
  }

  private async read<T>(key: string): Promise<T | undefined> {
    const text = await this.memos.get(key);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as T;
    } catch {
      // A value another writer garbled answers nothing: the message is treated as one the gateway never sent.
      return undefined;
    }
  }
}

function messageKey(ref: MessageRef): string {
  return `${PREFIX}.msg:${part(ref.platform)}:${part(ref.chat)}:${part(ref.messageId)}`;
}

function pendingKey(route: string, deliveryId: string): string {
  return `${PREFIX}.turn:${part(route)}:${part(deliveryId)}`;
}

function isTranscriptMessage(value: unknown): value is AgentTranscriptMessage {
  const m = value as AgentTranscriptMessage | undefined;
  return (m?.role === 'user' || m?.role === 'assistant') && typeof m.content === 'string';
}
