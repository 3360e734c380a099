// What a platform description for definePlatform() holds (limit, schema, id format, how to send a chunk, what
// success is, how to read errors, credentials), and the types its hooks see: the chunk, the runtime, the receipt.
import type { ApprovalDraft, DelivererConversation, OptionsSchema, PluginLogger, Receipt } from '@hookwise/core';
import type { IssuedToken } from './cached-token';
import type { LengthUnit } from './chunk';
import type { AlreadyDelivered, PartialDelivery, PlatformFailure, ResponseVerdict } from './failure';
import type { HttpRequest, HttpResponse } from './http-exchange';
import type { PlatformOptions } from './options-schema';
import type { Clock } from './pacing';
import type { AlreadyDeliveredNote, PartialNote, ProgressStore } from './progress';
import type { TargetRules } from './target';

/** One message-sized piece of an answer, with everything needed to address it. */
export interface OutgoingChunk {
  text: string;
  /** 0-based position and total number of chunks of this answer. */
  index: number;
  count: number;
  /** Resolved target (deliver_extra.chat_id or home_channel); "" when the platform needs none. */
  target: string;
  /** The rendered deliver_extra of the route. */
  extra: Record<string, string>;
  /** The webhook delivery id: stable across retries; idempotency keys use it with route and destination (deliveryKey). */
  deliveryId: string;
  /** The route's name for this destination (the platform's id, or e.g. `slack#2` for a second Slack entry). */
  destination: string;
  /** Route and event type of the webhook (subjects, titles; idempotency keys, as delivery ids are per route). */
  route: string;
  event: string;
  /** Access token from `token`, when the platform defines one. */
  token?: string;
}

/** An accepted answer; `alreadyDelivered`/`partial` are set when `checkResponse` said so. */
export interface PlatformResponse extends HttpResponse {
  alreadyDelivered?: AlreadyDelivered;
  partial?: PartialDelivery;
}

/** Sends a request through the kit: no redirects, error mapping, inline 429 waits, token refresh, redaction. */
export type PlatformCall = (request: HttpRequest | ((token: string | undefined) => HttpRequest)) => Promise<PlatformResponse>;

/** The kit's receipt: the optional lists only appear when they have entries. */
export interface PlatformReceipt extends Receipt {
  target: string;
  ids: string[];
  alreadyDelivered?: AlreadyDeliveredNote[];
  /** Parts that reached some recipients but not all (the failed ones are named). */
  partial?: PartialNote[];
  /** Set when the answer had more parts than max_parts: how many it had and how many were sent. */
  truncated?: { parts: number; sent: number };
}

export interface PlatformRuntime<O> {
  options: O;
  call: PlatformCall;
  signal: AbortSignal;
  /** The plugin's logger; every line is scrubbed of this platform's secrets. */
  logger: PluginLogger;
  /** Scrubs this platform's secrets from a string (for messages a plugin builds itself). */
  scrub(text: string): string;
  /** For send() hooks: throws the kit's error for a 2xx answer that is not the platform's success (`rule`). */
  confirm(res: HttpResponse, rule: SuccessRule<O>, where: string): void;
}

/** What a send() hook reports for one part besides its message id. */
export interface SentPart {
  id: string | undefined;
  already?: AlreadyDelivered;
  partial?: PartialDelivery;
}

/** What a successful answer of the platform is (e.g. Telegram's `ok: true` with `result.message_id`). */
export interface SuccessRule<O> {
  /** For messages: what a success answer carries, e.g. "ok: true and result.message_id". */
  describe: string;
  /** Whether an accepted 2xx answer is the platform's documented success; a 2xx without it is a failure. */
  test(res: HttpResponse, options: O): boolean;
}

export interface PlatformDefinition<O extends PlatformOptions> {
  /** The `deliver` value: the platform's real name, e.g. "telegram". */
  id: string;
  /** Older names that still work everywhere, e.g. the SPEC's "platform_01". */
  aliases?: string[];
  /** Human name used in messages, e.g. "Telegram". */
  title: string;
  description?: string;
  /** Longest message the platform accepts, in characters; longer answers are split. */
  limit: number;
  /** What `limit` counts: UTF-16 code units (default) or UTF-8 bytes (platforms that document byte limits). */
  limitUnit?: LengthUnit;
  /** "plain": markdown is stripped before chunking (SMS). Default "markdown": sent as written. */
  format?: 'markdown' | 'plain';
  /** Default of the `max_parts` option: most parts one answer becomes (a truncation notice ends the last). Default 20. */
  maxParts?: number;
  /**
   * Milliseconds between two messages to the same chat, from the platform's documented per-chat rate (a
   * function when it depends on the chat, e.g. Telegram groups vs. private chats). 0 or absent: no pacing.
   */
  paceMs?: number | ((target: string, options: O) => number);
  optionsSchema: OptionsSchema;
  /** Every secret in the options (tokens, passwords, webhook URLs and their token parts); scrubbed from all output. */
  secrets(options: O): Array<string | undefined>;
  /** What a user should do when credentials are rejected, e.g. "check platforms.telegram.token". */
  credentialsHint: string;
  /** Problems the JSON Schema cannot express (e.g. "set token or webhook_url"); reported at startup. */
  configProblems?(options: O): string[];
  /** Whether a target (chat_id/home_channel) is needed; false e.g. for a channel webhook URL. Default true. */
  needsTarget?(options: O): boolean;
  /** With needsTarget false: a chat_id/home_channel is still used (and checked) when given (Home Assistant). */
  optionalTarget?: boolean;
  /** The platform's id format: every target is checked against it before anything is sent. */
  targets?: TargetRules<O>;
  /** Builds the HTTP request that sends one chunk. Give this (with `success`) or `send`. */
  request?(chunk: OutgoingChunk, options: O): HttpRequest;
  /** What the platform answers when it accepted a chunk sent with `request`. Required with `request`. */
  success?: SuccessRule<O>;
  /** Sends one chunk some other way (several calls, a non-HTTP protocol); returns the message id or a SentPart. */
  send?(chunk: OutgoingChunk, runtime: PlatformRuntime<O>): Promise<string | undefined | SentPart>;
  /**
   * Reads every non-redirect response before the HTTP status is looked at: return a failure for errors the
   * status does not show (HTTP 200 with `ok:false` or an error code), or to word/classify a non-2xx answer
   * better. Return undefined to accept a 2xx and let the status decide otherwise.
   * Return `{kind: 'already_delivered', message, messageId?}` when the answer means the platform already has
   * this message (a retry whose idempotency key or temporary id it has seen): the kit counts the part as sent,
   * without calling `messageId`, and lists it under `alreadyDelivered` in the receipt.
   * Return `{kind: 'partial', message, failed}` when some recipients did not get it: counted as sent, never
   * repeated, the failed recipients listed under `partial` in the receipt. `request` is what was sent (to
   * tell, say, the one recipient addressed from some members of a group).
   */
  checkResponse?(response: HttpResponse, options: O, request: HttpRequest): ResponseVerdict | undefined;
  /**
   * What a 3xx answer means for this platform, when it documents one (DingTalk redirects a throttled robot);
   * undefined: the kit's reading, a configuration error naming the Location.
   */
  redirect?(response: HttpResponse, options: O): PlatformFailure | undefined;
  /** The platform's id of the created message, for the receipt. */
  messageId?(response: HttpResponse): string | undefined;
  /** "Enabled and connected": check the credentials with a cheap authenticated call. */
  start?(runtime: PlatformRuntime<O>): Promise<void>;
  /** Short-lived access tokens: how to get one. The kit caches it and refreshes once on `token_expired`. */
  token?(runtime: PlatformRuntime<O>): Promise<IssuedToken>;
  /** Whether `token` applies to these options; false e.g. for a webhook mode next to an app mode. Default true. */
  needsToken?(options: O): boolean;
  /**
   * Conversations: replies to this platform's messages can continue the agent's conversation. `platform`
   * defaults to the id; `replyExtra` says how an answer goes back into the thread (the deliverer's own extra keys).
   */
  conversation?: Omit<DelivererConversation, 'platform'> & { platform?: string };
  /**
   * Approvals: the request that posts a held answer with Approve / Deny buttons to `target` (the
   * approval's chat, else home_channel); `success` and `messageId` read its answer as for messages.
   */
  approvalDraft?(draft: ApprovalDraft, target: string, options: O): HttpRequest;
  /**
   * The chat the draft landed in, as the platform's presses name it (Telegram `result.chat.id` for an
   * `@channelusername` target, Slack's channel id for a user id); default: the target. A press counts only there.
   */
  draftChat?(response: HttpResponse): string | undefined;
  /**
   * Approvals: the request that edits a decided draft (its chat and message id, as postDraft answered) to `text`,
   * without its buttons; `success` reads its answer as for messages. Absent: a decided draft stays as it was.
   */
  approvalDecided?(draft: { chat: string; messageId: string }, text: string, options: O): HttpRequest;
  /** Longest Retry-After the kit waits for inside one delivery before handing back to the worker. Default 30. */
  maxInlineWaitSeconds?: number;
  /** How many times one request is repeated inline after a 429. Default 2. */
  maxInlineRetries?: number;
}

/** What a deliverer can be given besides its options: a virtual clock (tests), a progress store (restarts). */
export interface PlatformDelivererOverrides {
  clock?: Clock;
  progress?: ProgressStore;
}
