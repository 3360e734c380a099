// What a plugin can contribute: a Source (a sender's webhook style), a Deliverer and an AgentRunner (the Store
// interface is in stores/types.ts). Plain interfaces on purpose: plugins bring their own copy of core, so nothing
// here relies on instanceof.
import type { AgentRunSandbox, AgentSandbox, AgentSandboxNeeds } from './agent-sandbox';
import type { ApprovalPress, DelivererApproval, DelivererConversation, InboundReply, InboundSender } from './conversations';

/** Header map as Node gives it: lower-case names, string or string[] values. */
export type HeaderMap = Record<string, string | string[] | undefined>;

/** A request as a source sees it: the exact bytes, the headers and where the sender posted it. */
export interface SourceRequest {
  headers: HeaderMap;
  rawBody: Buffer;
  /**
   * The URL the sender posted to, as the sender saw it: `platforms.webhook.extra.public_url` (or the Host
   * header) + the request path and query. Senders that sign the URL (Twilio) need it.
   */
  url: string;
  /** Epoch milliseconds at receipt; timestamped styles compare against it. */
  receivedAt: number;
  /** The HTTP method: `POST`, or another one the source takes (`requests`); absent means `POST`. */
  method?: string;
}

/**
 * The verdict of a source: which secret matched (its position in the route's `secrets`, never the value), or
 * why the request failed. `missing: true` when the request carries no signature of this style at all
 * (answered `401 Missing signature` instead of `Invalid signature`).
 */
export type SourceVerdict = { ok: true; secretIndex: number } | { ok: false; reason: string; missing?: boolean };

/** A synchronous answer a sender expects instead of `202` (URL verification, PING, endpoint validation). */
export interface HandshakeAnswer {
  status: number;
  /** An object is sent as JSON; a string as text/plain unless `contentType` says otherwise. */
  body: string | Record<string, unknown>;
  contentType?: string;
}

/**
 * Everything sender-specific about a webhook: which headers mark its style, how it is verified, where its event
 * type and delivery id are, how its body becomes a payload object, and the handshake it expects.
 */
export interface Source {
  /**
   * Lower-case header names that mark a request in this style (the signature header first). A route that does
   * not name its source picks the first source whose header is present.
   */
  readonly headers: string[];
  /** Checks the request against each of the route's secrets (rotation: any one may match). Never throws for bad input. */
  verify(req: SourceRequest, secrets: readonly string[]): SourceVerdict;
  /**
   * The payload object when the sender does not post a JSON object (a form, a JSON array); undefined means the
   * body cannot be parsed (400). Without it: a JSON object, or a form whose `payload` field is one.
   */
  parse?(req: SourceRequest): Record<string, unknown> | undefined;
  /** The sender's event type, matched by a route's `events`; undefined falls back to the payload's `event_type`. */
  eventType?(req: SourceRequest, payload: Record<string, unknown>): string | undefined;
  /** The sender's delivery id, the same on its retries; undefined falls back to `X-Request-ID`, then a generated id. */
  deliveryId?(req: SourceRequest, payload: Record<string, unknown>): string | undefined;
  /**
   * Runs after verification: an answer here is sent at once and nothing is queued (URL verification, PING).
   * `secret` is the one that matched, for handshakes that must prove knowledge of it (Zoom).
   */
  handshake?(req: SourceRequest, payload: Record<string, unknown>, secret: string): HandshakeAnswer | undefined;
  /**
   * Requests besides `POST /webhooks/<route>` that the sender makes, taken only on a route that pins this source:
   * other methods (Meta's GET verification, a Matrix homeserver's PUT) and paths below the route's
   * (`/webhooks/<route>/<sub-path>`: a Matrix homeserver appends its API path to the URL it is given). They go
   * through the same steps (verify, parse, handshake, ...); anything else is answered as before (405, 404).
   */
  readonly requests?: { methods?: readonly string[]; subPaths?: boolean };
  /**
   * The answer to an event taken (accepted, duplicate or ignored) for senders that want a fixed one instead of the
   * gateway's JSON (a Matrix homeserver wants 200 `{}`); refusals keep the gateway's answers.
   */
  readonly eventAnswer?: HandshakeAnswer;
  /**
   * Conversations: the message this verified payload answers, when it is a reply a person wrote
   * (Telegram `reply_to_message`, a Slack thread, a GitHub comment on a pull request); undefined for anything
   * else. Asked only on a route that pins this source. Synchronous, no I/O: it reads the payload.
   */
  replyOf?(payload: Record<string, unknown>): InboundReply | undefined;
  /**
   * True for a message the gateway's own account wrote, which the platform sends back like anyone's (BlueBubbles
   * `isFromMe`, a Matrix or Mattermost bot user the route names): ignored (200, reason `own_message`) before the
   * route's filters, so an inbound route that answers in the same chat never answers itself.
   */
  ownMessage?(payload: Record<string, unknown>): boolean;
  /**
   * Who wrote this verified payload, when it is a person's message or command on a chat platform (Telegram
   * `from.id`, Slack `user`, a Discord interaction's user): a route with this source names in `allow_from` who may
   * start a run, and is refused at startup without it. Undefined when the payload names no person (counted as
   * nobody allowed). Synchronous, no I/O.
   */
  senderOf?(payload: Record<string, unknown>): InboundSender | undefined;
  /**
   * Groups this source names a reply's author by besides the user id (InboundReply.alsoAllowedAs `<prefix>:<NAME>`:
   * GitHub's `association:MEMBER`), so that allow_from refuses a group's bare name, which it would read as a user id
   * anyone could register.
   */
  readonly senderGroups?: { prefix: string; names: readonly string[]; what: string };
  /** Approvals: the Approve / Deny press this payload is (its data from approvalButtonData), else undefined. */
  pressOf?(payload: Record<string, unknown>): ApprovalPress | undefined;
  /** The answer the platform gets for a decided press; `text` says what happened. Default: an empty 200. */
  pressAnswer?(press: ApprovalPress, text: string): HandshakeAnswer;
}

/** A loaded skill document (Agent Skills format: SKILL.md with name/description front matter). */
export interface Skill {
  name: string;
  description: string;
  body: string;
  /** Directory holding SKILL.md, when the skill comes from disk. */
  dir?: string;
}

export interface AgentTask {
  prompt: string;
  skills: Skill[];
  route: string;
  event: string;
  deliveryId: string;
  /**
   * Where this run's processes start (the gateway opens it per run and closes it after): every process a runner
   * starts (the CLI, terminal commands, stdio MCP servers) goes through `sandbox.plan()` or `sandbox.spawn()`, in
   * `sandbox.workDir`. Absent when a runner is called outside a gateway's worker.
   */
  sandbox?: AgentSandbox;
  /**
   * Set when the route keeps conversations: the run answers turn `turn` of conversation `id`. `prompt`
   * is then the rendered history (the earlier turns and the new reply), which every runner understands; a runner
   * that keeps the conversation itself sends `message` instead, after its own session or transcript.
   */
  conversation?: AgentConversation;
}

/** The conversation a run continues or starts (see `AgentTask.conversation`). */
export interface AgentConversation {
  id: string;
  /** The answer's turn: 1 for the run that starts the conversation. */
  turn: number;
  /** What the previous turn's run returned as `AgentResult.session` (a CLI's session id), if anything. */
  session?: string;
  /** The new reply alone (who wrote it and the text), for a runner that resumes a session or a transcript; absent on turn 1. */
  message?: string;
  /** The messages of the conversation kept in the gateway's store for an API runner (bounded in size by the gateway). */
  transcript?: AgentTranscript;
}

/** One message of a kept transcript: the texts as the model saw them, before this run's fencing. */
export interface AgentTranscriptMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** A conversation's transcript in the gateway's store: empty when none is kept (expired, or turn 1). */
export interface AgentTranscript {
  load(): Promise<AgentTranscriptMessage[]>;
  /** Replaces the kept messages; the gateway drops the oldest ones beyond its size bound. */
  save(messages: AgentTranscriptMessage[]): Promise<void>;
}

export interface AgentResult {
  text: string;
  /**
   * Tokens the run used, summed over all its model requests, when the runner knows them: counted by the gateway's
   * metrics (`hookwise_agent_tokens_total`). `inputTokens` counts every input token, cached ones included (as
   * OpenAI's prompt_tokens do; a runner adds Anthropic's cache tokens in); the cache fields say how many of them
   * were read from or written to the provider's prompt cache.
   */
  usage?: AgentUsage;
  /**
   * The CLI's own session id (Claude Code's `session_id`, Codex's `thread_id`) when the run started or resumed one:
   * the gateway keeps it with the conversation and passes it back as `AgentTask.conversation.session` next turn.
   */
  session?: string;
}

/** Tokens an agent run used (see `AgentResult.usage`); stored with the job and summed per route. */
export interface AgentUsage {
  inputTokens?: number;
  outputTokens?: number;
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
  /**
   * What the run's model calls cost in US dollars, priced by the gateway's model proxy from the tokens it read in
   * each response (absent when no call went through the proxy, or no price is known for its model).
   */
  costUsd?: number;
  /** How many model calls went through the gateway's model proxy in this run. */
  modelCalls?: number;
  /**
   * Not tokens: how the run was sandboxed, set by the gateway's worker. Kept here so that every store keeps it
   * with the run's usage without a column of its own.
   */
  sandbox?: AgentRunSandbox;
  /** Not tokens: how many secrets the gateway scrubbed from the run's answer before storing it. */
  scrubbedSecrets?: number;
}

export interface AgentRunner {
  run(task: AgentTask, opts: { signal: AbortSignal }): Promise<AgentResult>;
  /**
   * What this runner's processes need inside the sandbox (a preset's private home, its CLI's install dir, API
   * hosts), added to every run of `route` (absent: what every route's runs need).
   */
  sandboxNeeds?(route?: string): AgentSandboxNeeds;
  /**
   * The program this runner starts, looked up as a shell would, with its version: called at startup and by
   * `hookwise doctor`, so that a missing CLI is found before the first event, not at it.
   */
  check?(): Promise<AgentProgramCheck>;
  stop?(): Promise<void>;
}

/** What AgentRunner.check() found. */
export interface AgentProgramCheck {
  /** The program as configured (`claude`, `./bin/agent`). */
  program: string;
  /** Where it was found; undefined when it was not. */
  path?: string;
  /** What `<program> --version` printed (first line), when it ran. */
  version?: string;
  /** What is wrong and how to fix it (the install command), when it cannot run. */
  problem?: string;
}

export interface DeliveryMessage {
  /** The agent's answer. */
  text: string;
  route: string;
  event: string;
  deliveryId: string;
  /** The route's `deliver_extra`, rendered against the payload. */
  extra: Record<string, string>;
  /**
   * The destination's name in the route: its deliverer id, or `<id>#2` for a second entry of the same id.
   * With route and deliveryId it identifies one delivery to one place: the key of idempotency keys and progress
   * (see `idempotencyKey` in @hookwise/kit). Absent when a deliverer is called outside the worker.
   */
  destination?: string;
}

export interface Receipt {
  /** Where the message went, e.g. a channel id, a comment URL or "log". */
  target?: string;
  /** Platform ids of what was created (message ids, comment URLs), one per chunk. */
  ids?: string[];
  [key: string]: unknown;
}

export interface DeliverOptions {
  signal: AbortSignal;
  /** 1 for the first try, 2 for the first retry of the job's delivery step, ... */
  attempt: number;
}

export interface Deliverer {
  /** Checks that the destination is enabled and its credentials work. */
  start?(): Promise<void>;
  /** Throws a HookwiseError with `retryable` set when delivery fails. */
  deliver(msg: DeliveryMessage, opts: DeliverOptions): Promise<Receipt>;
  stop?(): Promise<void>;
  /** Set when a reply to this destination's messages can continue a conversation. */
  conversation?: DelivererConversation;
  /** Set when this destination can post an approval draft with Approve / Deny buttons. */
  approval?: DelivererApproval;
}
