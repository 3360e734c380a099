// definePlatform(): turns a short description of one messaging platform (limit, schema, how to build the
// request for one chunk, how to read the answer, how to check credentials) into a Hookwise deliverer.
// Everything the fifteen platforms share lives here: target resolution, markdown handling, chunking,
// HTTP with timeouts, error mapping, inline 429 waits, token refresh, redaction, resuming a half-sent answer.
import { LRUCache } from 'lru-cache';
import { HookwiseError, isHookwiseError, type Deliverer, type DelivererContribution, type DeliverOptions, type DeliveryMessage, type OptionsSchema, type PluginContext, type Receipt } from '@hookwise/core';
import { CachedToken, type IssuedToken } from './cached-token';
import { chunkText, type LengthUnit } from './chunk';
import { classifyHttpStatus, failureToError, type AlreadyDelivered, type ResponseVerdict } from './failure';
import { describeRequest, sendHttp, type HttpRequest, type HttpResponse } from './http';
import { markdownToPlainText } from './markdown';
import type { PlatformOptions } from './options-schema';
import { SecretScrubber } from './secret-scrubber';
import { sleep } from './sleep';
import { resolveTarget } from './target';

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
  /** The webhook delivery id: stable across retries, usable for idempotency keys. */
  deliveryId: string;
  /** Route and event type of the webhook (subjects, titles; idempotency keys, as delivery ids are per route). */
  route: string;
  event: string;
  /** Access token from `token`, when the platform defines one. */
  token?: string;
}

/** An accepted answer; `alreadyDelivered` is set when `checkResponse` said the platform already had the message. */
export interface PlatformResponse extends HttpResponse {
  alreadyDelivered?: AlreadyDelivered;
}

/** Sends a request through the kit: error mapping, inline 429 waits, token refresh, redaction. */
export type PlatformCall = (request: HttpRequest | ((token: string | undefined) => HttpRequest)) => Promise<PlatformResponse>;

/** A part the platform reported as already delivered, in the receipt's `alreadyDelivered` list. */
export interface AlreadyDeliveredNote {
  /** 0-based part number, as in `OutgoingChunk.index`. */
  index: number;
  /** What the platform answered (scrubbed). */
  message: string;
}

/** The kit's receipt: `alreadyDelivered` only appears when a platform answered "duplicate" for some part. */
export interface PlatformReceipt extends Receipt {
  target: string;
  ids: string[];
  alreadyDelivered?: AlreadyDeliveredNote[];
}

export interface PlatformRuntime<O> {
  options: O;
  call: PlatformCall;
  signal: AbortSignal;
  logger: PluginContext['logger'];
  /** Scrubs this platform's secrets from a string (for messages a plugin builds itself). */
  scrub(text: string): string;
}

export interface PlatformDefinition<O extends PlatformOptions> {
  /** The `deliver` value, e.g. "platform_01". */
  id: string;
  /** Human name used in messages, e.g. "Telegram". */
  title: string;
  description?: string;
  /** Longest message the platform accepts, in characters; longer answers are split. */
  limit: number;
  /** What `limit` counts: UTF-16 code units (default) or UTF-8 bytes (platforms that document byte limits). */
  limitUnit?: LengthUnit;
  /** "plain": markdown is stripped before chunking (SMS). Default "markdown": sent as written. */
  format?: 'markdown' | 'plain';
  optionsSchema: OptionsSchema;
  /** Every secret in the options (tokens, passwords, webhook URLs); scrubbed from all output. */
  secrets(options: O): Array<string | undefined>;
  /** What a user should do when credentials are rejected, e.g. "check platforms.platform_01.token". */
  credentialsHint: string;
  /** Problems the JSON Schema cannot express (e.g. "set token or webhook_url"); reported at startup. */
  configProblems?(options: O): string[];
  /** Whether a target (chat_id/home_channel) is needed; false e.g. for a channel webhook URL. Default true. */
  needsTarget?(options: O): boolean;
  /** Builds the HTTP request that sends one chunk. Give this or `send`. */
  request?(chunk: OutgoingChunk, options: O): HttpRequest;
  /** Sends one chunk some other way (several calls, a non-HTTP protocol); returns the message id. */
  send?(chunk: OutgoingChunk, runtime: PlatformRuntime<O>): Promise<string | undefined>;
  /**
   * Reads every response before the HTTP status is looked at: return a failure for errors the status does
   * not show (HTTP 200 with `ok:false` or an error code), or to word/classify a non-2xx answer better.
   * Return undefined to accept a 2xx and let the status decide otherwise.
   * Return `{kind: 'already_delivered', message, messageId?}` when the answer means the platform already has
   * this message (a retry whose idempotency key or temporary id it has seen): the kit counts the part as sent,
   * without calling `messageId`, and lists it under `alreadyDelivered` in the receipt.
   */
  checkResponse?(response: HttpResponse, options: O): ResponseVerdict | undefined;
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

const PROGRESS_LIMIT = 1000;
/** A retry comes within the retry schedule (hours at most); older progress is forgotten. */
const PROGRESS_TTL_MS = 24 * 60 * 60 * 1000;

/** What one delivery has sent so far: an id ('' when none) per part, and the parts the platform already had. */
interface DeliveryProgress {
  ids: string[];
  already: AlreadyDeliveredNote[];
}

/** One part sent: the message id, and the platform's "already delivered" answer when it gave one. */
interface SentPart {
  id: string | undefined;
  already?: AlreadyDelivered;
}

export class PlatformDeliverer<O extends PlatformOptions> implements Deliverer {
  readonly label: string;
  private readonly scrubber: SecretScrubber;
  private readonly token?: CachedToken;
  /** Ids of the chunks already sent per delivery, so that a retried job does not repeat them. */
  private readonly progress = new LRUCache<string, DeliveryProgress>({ max: PROGRESS_LIMIT, ttl: PROGRESS_TTL_MS });

  constructor(readonly def: PlatformDefinition<O>, readonly options: O, private readonly ctx: PluginContext) {
    this.label = `${def.id} (${def.title})`;
    this.scrubber = new SecretScrubber();
    for (const secret of def.secrets(options)) for (const form of this.scrubber.add(secret)) ctx.redact(form);
    const problems = def.configProblems?.(options) ?? [];
    if (problems.length) {
      throw new HookwiseError('HW_E_CONFIG', `platforms.${def.id}: ${problems.join('; ')}`, { retryable: false });
    }
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
      const needsTarget = this.def.needsTarget?.(this.options) ?? true;
      const target = needsTarget ? resolveTarget(msg.extra, this.options.home_channel, this.def.id).target : '';
      const text = this.def.format === 'plain' ? markdownToPlainText(msg.text) : msg.text;
      if (!text.trim()) {
        throw new HookwiseError('HW_E_DELIVERY', `${this.label}: the agent's answer is empty; nothing to send`, { retryable: false });
      }
      const chunks = chunkText(text, this.def.limit, this.def.limitUnit);
      const progress = this.progress.get(msg.deliveryId) ?? { ids: [], already: [] };
      const runtime = this.runtime(opts.signal);
      for (let index = progress.ids.length; index < chunks.length; index++) {
        const chunk: OutgoingChunk = { text: chunks[index], index, count: chunks.length, target, extra: msg.extra ?? {}, deliveryId: msg.deliveryId, route: msg.route, event: msg.event };
        const sent = await this.sendChunk(chunk, runtime);
        progress.ids.push(sent.id ?? '');
        const part = `part ${index + 1}/${chunks.length} of ${msg.deliveryId}${target ? ` to ${target}` : ''}`;
        if (sent.already) {
          progress.already.push({ index, message: sent.already.message });
          this.ctx.logger.info(this.scrub(`${this.label}: ${part} was already delivered (${sent.already.message}); counted as sent`));
        } else {
          this.ctx.logger.debug(this.scrub(`${this.label}: sent ${part}`));
        }
        this.remember(msg.deliveryId, progress);
      }
      this.progress.delete(msg.deliveryId);
      const receipt: PlatformReceipt = { target: target || this.def.id, ids: progress.ids.filter((id) => id !== '') };
      if (progress.already.length) receipt.alreadyDelivered = progress.already;
      return receipt;
    });
  }

  private async sendChunk(chunk: OutgoingChunk, runtime: PlatformRuntime<O>): Promise<SentPart> {
    // Checked here for every platform, HTTP or not (send() hooks such as SMTP do not see the kit's HTTP client):
    // a delivery cancelled by shutdown sends nothing more and is retried after the restart.
    if (runtime.signal.aborted) throw new HookwiseError('HW_E_DELIVERY', `${this.label}: delivery cancelled before part ${chunk.index + 1}/${chunk.count} was sent`, { retryable: true });
    if (this.def.send) {
      // Any call a send() hook makes for this part (it may make several) can bring "already delivered".
      const seen: { already?: AlreadyDelivered } = {};
      const call: PlatformCall = async (request) => {
        const res = await runtime.call(request);
        seen.already ??= res.alreadyDelivered;
        return res;
      };
      const id = await this.def.send(chunk, { ...runtime, call });
      return { id: id ?? seen.already?.messageId, already: seen.already };
    }
    const build = this.def.request;
    if (!build) throw new Error(`${this.def.id}: the platform definition needs request() or send()`);
    const res = await runtime.call((token) => build({ ...chunk, token }, this.options));
    const already = res.alreadyDelivered;
    // A "duplicate" answer is not the platform's success body: only the id the check read from it counts.
    return { id: already ? already.messageId : this.def.messageId?.(res), already };
  }

  private remember(deliveryId: string, progress: DeliveryProgress): void {
    this.progress.set(deliveryId, progress);
  }

  /** `withToken` false for the token request itself, which must not wait for a token. */
  private runtime(signal: AbortSignal, withToken = true): PlatformRuntime<O> {
    return {
      options: this.options,
      signal,
      logger: this.ctx.logger,
      scrub: (text) => this.scrub(text),
      call: (request) => this.exchange(typeof request === 'function' ? request : () => request, signal, withToken),
    };
  }

  /** One request with the kit's policies: token refresh once, inline waits on short 429s, error mapping. */
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
      const res = await sendHttp(req, { signal, timeoutMs, scrubber: this.scrubber, label: this.label });
      const verdict = this.def.checkResponse?.(res, this.options) ?? classifyHttpStatus(res);
      if (!verdict) return res;
      if (verdict.kind === 'already_delivered') return { ...res, alreadyDelivered: { ...verdict, message: this.scrub(verdict.message) } };
      const failure = verdict;
      if (failure.kind === 'token_expired' && tokens && !refreshed) {
        refreshed = true;
        tokens.invalidate(token);
        this.ctx.logger.info(`${this.label}: access token expired; fetching a new one`);
        continue;
      }
      const wait = failure.retryAfterSeconds;
      if (failure.kind === 'rate_limited' && wait !== undefined && wait <= maxWait && retries < maxRetries) {
        retries++;
        this.ctx.logger.warn(`${this.label}: rate limited; waiting ${wait}s as the platform asked (inline retry ${retries}/${maxRetries})`);
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

/** A platform plugin's deliverer contribution: `contributes: [definePlatform({...})]`. */
export function definePlatform<O extends PlatformOptions>(def: PlatformDefinition<O>): DelivererContribution<O> {
  return {
    kind: 'deliverer',
    id: def.id,
    description: def.description ?? `Delivers answers to ${def.id} (${def.title}).`,
    requiresEnabled: true,
    optionsSchema: def.optionsSchema,
    create: (options, ctx) => new PlatformDeliverer(def, options, ctx),
  };
}
