// The deliverer definePlatform() makes: everything the platforms share, from target checks, chunking and pacing
// to HTTP without redirects, error mapping, inline 429 waits, token refresh, redaction and resuming a half-sent
// answer. The platform's own parts come from its PlatformDefinition (platform-definition.ts).
import {
  HookwiseError,
  isHookwiseError,
  SecretScrubber,
  type ApprovalDraft,
  type Deliverer,
  type DelivererApproval,
  type DelivererConversation,
  type DeliverOptions,
  type DeliveryMessage,
  type PluginContext,
  type PluginLogger,
} from '@hookwise/core';
import { CachedToken } from './cached-token';
import { capParts, chunkText } from './chunk';
import {
  classifyHttpStatus,
  errorDetail,
  failureToError,
  type AlreadyDelivered,
  type PartialDelivery,
  type PlatformFailure,
  type ResponseVerdict,
} from './failure';
import { describeRequest, isRedirect, redirectFailure, sendHttp } from './http';
import type { HttpRequest, HttpResponse } from './http-exchange';
import { markdownToPlainText } from './markdown';
import type { PlatformOptions } from './options-schema';
import { Pacer, systemClock, type Clock } from './pacing';
import type {
  OutgoingChunk,
  PlatformCall,
  PlatformDefinition,
  PlatformDelivererOverrides,
  PlatformReceipt,
  PlatformResponse,
  PlatformRuntime,
  SentPart,
  SuccessRule,
} from './platform-definition';
import { KVProgressStore, MemoryProgressStore, progressKey, type DeliveryProgress, type ProgressStore } from './progress';
import { sleep } from '../common/sleep';
import { allowedTargetsTest, genericTargetProblem, optionalTarget, resolveTarget, showTarget, type ResolvedTarget } from './target';

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
  /** Present when the platform's messages can be answered (PlatformDefinition.conversation). */
  readonly conversation?: DelivererConversation;
  /** Present when the platform can post an approval draft with buttons (PlatformDefinition.approvalDraft). */
  readonly approval?: DelivererApproval;

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
    if (def.conversation) this.conversation = { ...def.conversation, platform: def.conversation.platform ?? def.id };
    if (def.approvalDraft) {
      const platform = def.conversation?.platform ?? def.id;
      this.approval = {
        platform,
        postDraft: (draft, opts) => this.postDraft(draft, opts),
        ...(def.approvalDecided ? { decided: (draft, text, opts) => this.decidedDraft(draft, text, opts) } : {}),
      };
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

  /**
   * Posts an approval draft (DelivererApproval) with the kit's HTTP policies, to `opts.chat` (the route's
   * approval.chat: configuration, not payload, so allowed_targets does not apply) or the home channel, checked
   * against the platform's id format.
   */
  private postDraft(draft: ApprovalDraft, opts: { chat?: string; signal: AbortSignal }): Promise<{ chat: string; messageId?: string }> {
    return this.guard(async () => {
      // A draft always goes to a chat, even where answers need none (a channel webhook beside a bot token).
      const found = optionalTarget(opts.chat === undefined ? {} : { chat_id: opts.chat }, this.options.home_channel);
      if (!found) {
        throw new HookwiseError(
          'HW_E_DELIVERY_TARGET',
          `${this.label}: the approval draft of ${draft.deliveryId} has no chat: set approval.chat on the route or platforms.${this.def.id}.home_channel`,
          { retryable: false },
        );
      }
      const target = found.target;
      const problem = this.formatProblem(found, {});
      if (problem) {
        throw new HookwiseError('HW_E_DELIVERY_TARGET', this.scrub(`${this.label}: the approval chat ${showTarget(target)} is refused: ${problem}`), {
          retryable: false,
        });
      }
      const res = await this.runtime(opts.signal).call(() => this.def.approvalDraft!(draft, target, this.options));
      if (this.def.success) this.confirm(res, this.def.success, `the approval draft of ${draft.deliveryId}`);
      return { chat: this.def.draftChat?.(res) ?? target, messageId: this.def.messageId?.(res) };
    });
  }

  /** Edits a decided draft (DelivererApproval.decided) with the kit's HTTP policies, where postDraft put it. */
  private decidedDraft(draft: { chat: string; messageId: string }, text: string, opts: { signal: AbortSignal }): Promise<void> {
    return this.guard(async () => {
      const res = await this.runtime(opts.signal).call(() => this.def.approvalDecided!(draft, text, this.options));
      if (this.def.success) this.confirm(res, this.def.success, `the edit of the decided approval draft ${draft.messageId}`);
    });
  }

  /** What is wrong with a target's form: the kit's generic checks, then the platform's id format. */
  private formatProblem(resolved: ResolvedTarget, extra: Record<string, string>): string | undefined {
    return genericTargetProblem(resolved.target) ?? this.def.targets?.check(resolved.target, { options: this.options, source: resolved.source, extra });
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
    const problem = this.formatProblem(resolved, extra);
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
