// The three things a plugin can contribute: a Verifier, a Deliverer and an AgentRunner.
// Plain interfaces on purpose: plugins bring their own copy of core, so nothing here relies on instanceof.

/** Header map as Node gives it: lower-case names, string or string[] values. */
export type HeaderMap = Record<string, string | string[] | undefined>;

export interface VerifyRequest {
  headers: HeaderMap;
  rawBody: Buffer;
}

export type VerifyResult = { ok: true } | { ok: false; reason: string };

export interface Verifier {
  /** Lower-case header names this verifier reads; the pipeline picks the verifier whose header is present. */
  readonly headers: string[];
  verify(req: VerifyRequest, secret: string): VerifyResult;
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
}

export interface AgentResult {
  text: string;
}

export interface AgentRunner {
  run(task: AgentTask, opts: { signal: AbortSignal }): Promise<AgentResult>;
  stop?(): Promise<void>;
}

export interface DeliveryMessage {
  /** The agent's answer. */
  text: string;
  route: string;
  event: string;
  deliveryId: string;
  /** The route's `deliver_extra`, rendered against the payload. */
  extra: Record<string, string>;
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
}
