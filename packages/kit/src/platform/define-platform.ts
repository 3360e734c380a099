// definePlatform(): turns a short description of one messaging platform (limit, schema, id format, how to
// build the request for one chunk, what its success answer is, how to read its errors, how to check
// credentials) into a Hookwise deliverer. Everything the fifteen platforms share lives here: target
// resolution and validation, allowed_targets, markdown handling, chunking, the cap on parts, pacing between
// parts, HTTP without redirects, error mapping, inline 429 waits, token refresh, redaction, resuming a
// half-sent answer.
import {
  HookwiseError,
  isHookwiseError,
  type Deliverer,
  type DelivererContribution,
  type DeliverOptions,
  type DeliveryMessage,
  type OptionsSchema,
  type PluginContext,
  type PluginLogger,
  type Receipt,
} from '@hookwise/core';
import { CachedToken, type IssuedToken } from './cached-token';
import { capParts, chunkText, type LengthUnit } from './chunk';
import {
  classifyHttpStatus,
  errorDetail,
  failureToError,
  type AlreadyDelivered,
  type PartialDelivery,
  type PlatformFailure,
  type ResponseVerdict,
} from './failure';
import { describeRequest, isRedirect, redirectFailure, sendHttp, type HttpRequest, type HttpResponse } from './http';
import { markdownToPlainText } from './markdown';
import type { PlatformOptions } from './options-schema';
import { Pacer, systemClock, type Clock } from './pacing';
import {
  KVProgressStore,
  MemoryProgressStore,
  progressKey,
  type AlreadyDeliveredNote,
  type DeliveryProgress,
  type PartialNote,
  type ProgressStore,
} from './progress';
import { SecretScrubber } from '@hookwise/core';
import { sleep } from '../shared/sleep';
import { allowedTargetsTest, genericTargetProblem, optionalTarget, resolveTarget, showTarget, type ResolvedTarget, type TargetRules } from './target';

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

/** max_parts of a platform that states none. */
export const DEFAULT_MAX_PARTS = 20;

/** The truncation notice that ends the last part of an answer cut at max_parts. */
export function truncationNotice(total: number, sent: number): string {
  return `[Answer truncated: it had ${total} parts, only the first ${sent} were sent (max_parts).]`;
}

/** A logger whose every line goes through `scrub` first. */
function scrubbingLogger(logger: PluginLogger, scrub: (text: string) => string): PluginLogger {
  return {
    error: (message, meta) => logger.error(scrub(message), meta),
    warn: (message, meta) => logger.warn(scrub(message), meta),
    info: (message, meta) => logger.info(scrub(message), meta),
    debug: (message, meta) => logger.debug(scrub(message), meta),
    child: (meta) => scrubbingLogger(logger.child(meta), scrub),
  };
}

export class PlatformDeliverer<O extends PlatformOptions> implements Deliverer {
  readonly label: string;
  private readonly scrubber: SecretScrubber;
  private readonly token?: CachedToken;
  private readonly logger: PluginLogger;
  private readonly clock: Clock;
  private readonly pacer: Pacer;
  /** Parts already sent per delivery, so that a retried job does not repeat them. */
  private readonly progress: ProgressStore;
  private readonly allowed?: (id: string) => boolean;

  constructor(
    readonly def: PlatformDefinition<O>,
    readonly options: O,
    private readonly ctx: PluginContext,
    overrides: PlatformDelivererOverrides = {},
  ) {
    this.label = `${def.id} (${def.title})`;
    this.scrubber = new SecretScrubber();
    for (const secret of def.secrets(options)) for (const form of this.scrubber.add(secret)) ctx.redact(form);
    this.logger = scrubbingLogger(ctx.logger, (text) => this.scrub(text));
    this.clock = overrides.clock ?? systemClock;
    this.pacer = new Pacer(this.clock);
    // The gateway's store when it gives one (kept across restarts), else this process's memory.
    this.progress = overrides.progress ?? (ctx.progress ? new KVProgressStore(ctx.progress) : new MemoryProgressStore());
    const problems = def.configProblems?.(options) ?? [];
    if (problems.length) {
      throw new HookwiseError('HW_E_CONFIG', `platforms.${def.id}: ${problems.join('; ')}`, { retryable: false });
    }
    this.allowed = allowedTargetsTest(options.allowed_targets, `platforms.${def.id}.allowed_targets`);
    if (def.token && (def.needsToken?.(options) ?? true)) {
      const issue = def.token;
      this.token = new CachedToken(async (signal) => {
        const issued = await issue(this.runtime(signal, false));
        // Access tokens are secrets too: they travel in URLs and headers.
        for (const form of this.scrubber.add(issued.token)) ctx.redact(form);
        return issued;
      });
    }
  }

  scrub(text: string): string {
    return this.scrubber.scrub(text);
  }

  async start(): Promise<void> {
    if (this.def.start) await this.guard(() => this.def.start!(this.runtime(this.ctx.signal)));
  }

  async deliver(msg: DeliveryMessage, opts: DeliverOptions): Promise<PlatformReceipt> {
    return this.guard(async () => {
      const extra = msg.extra ?? {};
      const resolved = this.target(extra);
      const target = resolved?.target ?? '';
      const text = this.def.format === 'plain' ? markdownToPlainText(msg.text) : msg.text;
      if (!text.trim()) {
        throw new HookwiseError('HW_E_DELIVERY', `${this.label}: the agent's answer is empty; nothing to send`, { retryable: false });
      }
      const maxParts = this.options.max_parts ?? this.def.maxParts ?? DEFAULT_MAX_PARTS;
      const capped = capParts(chunkText(text, this.def.limit, this.def.limitUnit), maxParts, this.def.limit, truncationNotice, this.def.limitUnit);
      const chunks = capped.parts;
      const key = progressKey(this.def.id, msg.route, msg.deliveryId, msg.destination);
      const progress: DeliveryProgress = (await this.progress.load(key)) ?? { ids: [], already: [], partial: [] };
      const runtime = this.runtime(opts.signal);
      if (capped.total > chunks.length && progress.ids.length === 0) {
        this.logger.warn(
          `${this.label}: the answer to ${msg.deliveryId} has ${capped.total} parts; sending the first ${chunks.length} (platforms.${this.def.id}.max_parts)`,
        );
      }
      const pace = typeof this.def.paceMs === 'function' ? this.def.paceMs(target, this.options) : (this.def.paceMs ?? 0);
      for (let index = progress.ids.length; index < chunks.length; index++) {
        const chunk: OutgoingChunk = {
          text: chunks[index],
          index,
          count: chunks.length,
          target,
          extra,
          deliveryId: msg.deliveryId,
          route: msg.route,
          destination: msg.destination ?? this.def.id,
          event: msg.event,
        };
        const waited = await this.pacer.wait(target, pace, opts.signal).catch(() => {
          throw new HookwiseError(
            'HW_E_DELIVERY',
            `${this.label}: delivery cancelled while waiting to send part ${index + 1}/${chunks.length} (the platform's per-chat rate)`,
            { retryable: true },
          );
        });
        if (waited > 0) this.logger.debug(`${this.label}: waited ${waited} ms before part ${index + 1}/${chunks.length} (per-chat rate)`);
        const sent = await this.sendChunk(chunk, runtime);
        progress.ids.push(sent.id ?? '');
        const part = `part ${index + 1}/${chunks.length} of ${msg.deliveryId}${target ? ` to ${target}` : ''}`;
        if (sent.already) {
          progress.already.push({ index, message: this.scrub(sent.already.message) });
          this.logger.info(`${this.label}: ${part} was already delivered (${sent.already.message}); counted as sent`);
        } else if (sent.partial) {
          progress.partial.push({ index, message: this.scrub(sent.partial.message), failed: sent.partial.failed.map((r) => this.scrub(r)) });
          this.logger.warn(
            `${this.label}: ${part} did not reach ${sent.partial.failed.join(', ')} (${sent.partial.message}); the other recipients have it, so it is not sent again`,
          );
        } else {
          this.logger.debug(`${this.label}: sent ${part}`);
        }
        await this.progress.save(key, progress);
      }
      await this.progress.clear(key);
      const receipt: PlatformReceipt = { target: target || this.def.id, ids: progress.ids.filter((id) => id !== '') };
      if (progress.already.length) receipt.alreadyDelivered = progress.already;
      if (progress.partial.length) receipt.partial = progress.partial;
      if (capped.total > chunks.length) receipt.truncated = { parts: capped.total, sent: chunks.length };
      return receipt;
    });
  }

  /** The target of a message, checked: the platform's format, and allowed_targets for a chat_id. */
  private target(extra: Record<string, string>): ResolvedTarget | undefined {
    const needed = this.def.needsTarget?.(this.options) ?? true;
    const resolved = needed
      ? resolveTarget(extra, this.options.home_channel, this.def.id)
      : this.def.optionalTarget
        ? optionalTarget(extra, this.options.home_channel)
        : undefined;
    if (!resolved) return undefined;
    const from = resolved.source === 'chat_id' ? 'deliver_extra.chat_id' : `platforms.${this.def.id}.home_channel`;
    const refuse = (why: string, what: string) =>
      new HookwiseError(
        'HW_E_DELIVERY_TARGET',
        this.scrub(`${this.label}: refused target ${showTarget(resolved.target)} from ${from}: ${why}. ${what}; not retried`),
        { retryable: false },
      );
    const rules = this.def.targets;
    const problem = genericTargetProblem(resolved.target) ?? rules?.check(resolved.target, { options: this.options, source: resolved.source, extra });
    if (problem) throw refuse(problem, `Expected ${rules?.format ?? 'a valid id'}`);
    if (this.allowed && resolved.source === 'chat_id') {
      for (const recipient of rules?.recipients?.(resolved.target) ?? [resolved.target]) {
        if (!this.allowed(recipient)) {
          throw refuse(
            `${showTarget(recipient)} is not in platforms.${this.def.id}.allowed_targets`,
            'Add it there (an exact id or a /regex/) if answers may go to it',
          );
        }
      }
    }
    return resolved;
  }

  private async sendChunk(chunk: OutgoingChunk, runtime: PlatformRuntime<O>): Promise<SentPart> {
    // Checked here for every platform, HTTP or not (send() hooks such as SMTP do not see the kit's HTTP client):
    // a delivery cancelled by shutdown sends nothing more and is retried after the restart.
    if (runtime.signal.aborted)
      throw new HookwiseError('HW_E_DELIVERY', `${this.label}: delivery cancelled before part ${chunk.index + 1}/${chunk.count} was sent`, { retryable: true });
    if (this.def.send) {
      // Any call a send() hook makes for this part (it may make several) can bring "already delivered".
      const seen: { already?: AlreadyDelivered; partial?: PartialDelivery } = {};
      const call: PlatformCall = async (request) => {
        const res = await runtime.call(request);
        seen.already ??= res.alreadyDelivered;
        seen.partial ??= res.partial;
        return res;
      };
      const result = await this.def.send(chunk, { ...runtime, call });
      const sent: SentPart = typeof result === 'object' ? result : { id: result };
      return { id: sent.id ?? seen.already?.messageId, already: sent.already ?? seen.already, partial: sent.partial ?? seen.partial };
    }
    const build = this.def.request;
    if (!build) throw new Error(`${this.def.id}: the platform definition needs request() or send()`);
    const res = await runtime.call((token) => build({ ...chunk, token }, this.options));
    const already = res.alreadyDelivered;
    // A "duplicate" answer is not the platform's success body: only the id the check read from it counts.
    if (already) return { id: already.messageId, already };
    if (this.def.success) this.confirm(res, this.def.success, `part ${chunk.index + 1}/${chunk.count}`);
    return { id: this.def.messageId?.(res), partial: res.partial };
  }

  private confirm(res: HttpResponse, rule: SuccessRule<O>, where: string): void {
    if (rule.test(res, this.options)) return;
    const failure: PlatformFailure = { kind: 'unconfirmed', message: `HTTP ${res.status} without ${rule.describe}: ${errorDetail(res)}` };
    throw failureToError(failure, { label: this.label, credentialsHint: this.def.credentialsHint, where });
  }

  /** `withToken` false for the token request itself, which must not wait for a token. */
  private runtime(signal: AbortSignal, withToken = true): PlatformRuntime<O> {
    return {
      options: this.options,
      signal,
      logger: this.logger,
      scrub: (text) => this.scrub(text),
      confirm: (res, rule, where) => this.confirm(res, rule, where),
      call: (request) => this.exchange(typeof request === 'function' ? request : () => request, signal, withToken),
    };
  }

  /** One request with the kit's policies: no redirects, token refresh once, inline waits on short 429s, error mapping. */
  private async exchange(build: (token: string | undefined) => HttpRequest, signal: AbortSignal, withToken: boolean): Promise<PlatformResponse> {
    const tokens = withToken ? this.token : undefined;
    const maxWait = this.def.maxInlineWaitSeconds ?? 30;
    const maxRetries = this.def.maxInlineRetries ?? 2;
    const timeoutMs = (this.options.timeout_seconds ?? 15) * 1000;
    let refreshed = false;
    let retries = 0;
    for (;;) {
      const token = tokens ? await tokens.get(signal) : undefined;
      const req = build(token);
      const res = await sendHttp(req, { signal, timeoutMs, scrubber: this.scrubber, label: this.label, redirects: 'return' });
      const verdict: ResponseVerdict | undefined = isRedirect(res)
        ? (this.def.redirect?.(res, this.options) ?? redirectFailure(res, req, this.scrubber))
        : (this.def.checkResponse?.(res, this.options, req) ?? classifyHttpStatus(res));
      if (!verdict) return res;
      if (verdict.kind === 'already_delivered') return { ...res, alreadyDelivered: { ...verdict, message: this.scrub(verdict.message) } };
      if (verdict.kind === 'partial') return { ...res, partial: verdict };
      const failure = verdict;
      if (failure.kind === 'token_expired' && tokens && !refreshed) {
        refreshed = true;
        tokens.invalidate(token);
        this.logger.info(`${this.label}: access token expired; fetching a new one`);
        continue;
      }
      const wait = failure.retryAfterSeconds;
      if (failure.kind === 'rate_limited' && wait !== undefined && wait <= maxWait && retries < maxRetries) {
        retries++;
        this.logger.warn(`${this.label}: rate limited; waiting ${wait}s as the platform asked (inline retry ${retries}/${maxRetries})`);
        await sleep(wait * 1000, signal).catch(() => {
          throw new HookwiseError('HW_E_DELIVERY', 'delivery cancelled', { retryable: true });
        });
        continue;
      }
      throw failureToError(failure, { label: this.label, credentialsHint: this.def.credentialsHint, where: describeRequest(req, this.scrubber) });
    }
  }

  /** Whatever a plugin hook throws leaves here scrubbed of secrets and as a HookwiseError. */
  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isHookwiseError(err)) {
        const scrubbed = this.scrub(err.message);
        if (scrubbed === err.message) throw err;
        throw new HookwiseError(err.code, scrubbed, { retryable: err.retryable, retryAfterSeconds: err.retryAfterSeconds });
      }
      const message = err instanceof Error ? err.message : String(err);
      throw new HookwiseError('HW_E_DELIVERY', this.scrub(`${this.label}: ${message}`), { retryable: true });
    }
  }
}

/** A platform's deliverer contribution, with its definition and a factory that takes overrides (tests, a store). */
export interface PlatformContribution<O extends PlatformOptions> extends DelivererContribution<O> {
  platform: PlatformDefinition<O>;
  createDeliverer(options: O, ctx: PluginContext, overrides?: PlatformDelivererOverrides): PlatformDeliverer<O>;
}

/** A platform plugin's deliverer contribution: `contributes: [definePlatform({...})]`. */
export function definePlatform<O extends PlatformOptions>(def: PlatformDefinition<O>): PlatformContribution<O> {
  if (def.request && !def.success)
    throw new Error(`${def.id}: a platform that sends with request() must state its success answer (success), or a 2xx from anything would count as delivered`);
  // The schema states the platform's own default for max_parts (shown by `hookwise config` and in docs).
  const schema = def.optionsSchema as { properties?: Record<string, Record<string, unknown>> };
  const optionsSchema: OptionsSchema = schema.properties?.max_parts
    ? { ...schema, properties: { ...schema.properties, max_parts: { ...schema.properties.max_parts, default: def.maxParts ?? DEFAULT_MAX_PARTS } } }
    : def.optionsSchema;
  const createDeliverer = (options: O, ctx: PluginContext, overrides?: PlatformDelivererOverrides) => new PlatformDeliverer(def, options, ctx, overrides);
  return {
    kind: 'deliverer',
    id: def.id,
    ...(def.aliases?.length ? { aliases: def.aliases } : {}),
    description: def.description ?? `Delivers answers to ${def.title}.`,
    requiresEnabled: true,
    optionsSchema,
    create: (options, ctx) => createDeliverer(options, ctx),
    platform: def,
    createDeliverer,
  };
}
