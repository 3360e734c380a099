// One catalogue of every error a user or plugin author can meet, each with a stable HW_E_* code and a section
// in docs/errors.md (what it means, what to do) that its docsUrl points to.

/**
 * The command that prints docs/errors.md, which ships with the CLI (no website is needed to read it); a code's
 * section is `<DOCS_BASE> <code in lower case>`, the page's own anchor.
 */
export const DOCS_BASE = 'hookwise docs errors';

export const ERROR_CATALOGUE = {
  HW_E_UNKNOWN_ROUTE: { status: 404, message: 'Unknown route' },
  HW_E_PAYLOAD_TOO_LARGE: { status: 413, message: 'Payload too large' },
  HW_E_RATE_LIMITED: { status: 429, message: 'Rate limit exceeded' },
  HW_E_MISSING_SIGNATURE: { status: 401, message: 'Missing signature' },
  HW_E_INVALID_SIGNATURE: { status: 401, message: 'Invalid signature' },
  HW_E_BAD_BODY: { status: 400, message: 'Cannot parse body' },
  HW_E_BACKPRESSURE: { status: 503, message: 'Too many pending events, retry later' },
  HW_E_SHUTTING_DOWN: { status: 503, message: 'Gateway is shutting down' },
  HW_E_INTERNAL: { status: 500, message: 'Internal error' },
  HW_E_CONFIG: { status: undefined, message: 'Invalid configuration' },
  HW_E_PLUGIN_LOAD: { status: undefined, message: 'Plugin could not be loaded' },
  HW_E_PLUGIN_CALL: { status: undefined, message: 'Plugin call failed' },
  HW_E_AGENT: { status: undefined, message: 'Agent run failed' },
  HW_E_AGENT_TIMEOUT: { status: undefined, message: 'Agent run timed out' },
  HW_E_DELIVERY: { status: undefined, message: 'Delivery failed' },
  HW_E_DELIVERY_TARGET: { status: undefined, message: 'No delivery target' },
  HW_E_DELIVERY_AUTH: { status: undefined, message: 'Delivery credentials rejected' },
  HW_E_SUBSCRIPTIONS: { status: undefined, message: 'Subscriptions file problem' },
  HW_E_SKILL: { status: undefined, message: 'Skill problem' },
  HW_E_STORE: { status: undefined, message: 'Store problem' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface HookwiseErrorOptions {
  /** Whether retrying the same operation later may succeed. */
  retryable?: boolean;
  cause?: unknown;
  /** Seconds the caller should wait before retrying, when the failing side said so. */
  retryAfterSeconds?: number;
  plugin?: string;
  kind?: string;
  method?: string;
  details?: Record<string, unknown>;
}

const HOOKWISE_ERROR = Symbol.for('hookwise.error');
const HOOKWISE_CONFIG_ERROR = Symbol.for('hookwise.config-error');

export class HookwiseError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly retryAfterSeconds?: number;
  plugin?: string;
  kind?: string;
  method?: string;
  readonly details?: Record<string, unknown>;
  readonly [HOOKWISE_ERROR] = true;

  constructor(code: ErrorCode, message?: string, options: HookwiseErrorOptions = {}) {
    super(message ?? ERROR_CATALOGUE[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HookwiseError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.plugin = options.plugin;
    this.kind = options.kind;
    this.method = options.method;
    this.details = options.details;
  }

  /** HTTP status for errors that answer a request. */
  get status(): number | undefined {
    return ERROR_CATALOGUE[this.code].status;
  }

  /** The command that prints this code's docs/errors.md section: `hookwise docs errors hw_e_...`. */
  get docsUrl(): string {
    return docsUrlOf(this.code);
  }
}

/** The command that prints a code's docs/errors.md section (named docsUrl for the API's sake). */
function docsUrlOf(code: ErrorCode): string {
  return `${DOCS_BASE} ${code.toLowerCase()}`;
}

/** Recognises HookwiseErrors from any copy of core (plugins may bundle their own). */
export function isHookwiseError(err: unknown): err is HookwiseError {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[HOOKWISE_ERROR] === true;
}

/** Whether a failure should be retried: HookwiseErrors say so; unknown errors are assumed transient. */
export function isRetryable(err: unknown): boolean {
  if (isHookwiseError(err)) return err.retryable;
  if (typeof err === 'object' && err !== null && typeof (err as { retryable?: unknown }).retryable === 'boolean') {
    return (err as { retryable: boolean }).retryable;
  }
  return true;
}

/** A readable one-line message for any thrown value. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Wraps an error thrown by a plugin so that it says which plugin, kind and method threw. */
export function wrapPluginError(err: unknown, where: { plugin: string; kind: string; id: string; method: string }): HookwiseError {
  if (isHookwiseError(err)) {
    err.plugin ??= where.plugin;
    err.kind ??= where.kind;
    err.method ??= where.method;
    return err;
  }
  return new HookwiseError('HW_E_PLUGIN_CALL', `${where.kind} '${where.id}' (plugin ${where.plugin}) failed in ${where.method}(): ${errorMessage(err)}`, {
    cause: err,
    retryable: isRetryable(err),
    plugin: where.plugin,
    kind: where.kind,
    method: where.method,
  });
}

/** Several configuration or load problems reported together; never an HTTP answer, always shown to a person. */
export class HookwiseConfigError extends AggregateError {
  readonly code: ErrorCode;
  readonly [HOOKWISE_CONFIG_ERROR] = true;

  /**
   * `code` says which docs section explains the problems: HW_E_CONFIG (the default) for the config file, or e.g.
   * HW_E_PLUGIN_LOAD, HW_E_SUBSCRIPTIONS, HW_E_STORE. The message lists every problem and ends with that link.
   */
  constructor(
    readonly problems: string[],
    heading = 'Invalid configuration',
    code: ErrorCode = 'HW_E_CONFIG',
  ) {
    super(
      problems.map((p) => new Error(p)),
      `${heading}:\n${problems.map((p) => `  - ${p}`).join('\n')}\nDetails: ${docsUrlOf(code)}`,
    );
    this.name = 'HookwiseConfigError';
    this.code = code;
  }

  get docsUrl(): string {
    return docsUrlOf(this.code);
  }
}

/** Recognises HookwiseConfigErrors from any copy of core, like isHookwiseError. */
export function isHookwiseConfigError(err: unknown): err is HookwiseConfigError {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[HOOKWISE_CONFIG_ERROR] === true;
}

/**
 * What to show a person (CLI output, a job that failed for good): the message and, for Hookwise errors, the
 * docs link. Messages themselves carry no link (they are composed into other messages and stored with jobs),
 * except a HookwiseConfigError's, which is a whole report already ending with it. HTTP answers use the
 * catalogue's fixed texts, never this.
 */
export function describeError(err: unknown): string {
  if (isHookwiseConfigError(err)) return err.message;
  if (isHookwiseError(err)) return `${err.message} (details: ${err.docsUrl})`;
  return errorMessage(err);
}
