// Reads the numeric error code that many platform APIs put in the body of an HTTP 200 answer (`errcode`,
// `code`): 0 is success, anything else a failure whose kind the platform's code table decides. One reader
// for all of them, so that each plugin only lists what its codes mean.
import { classifyHttpStatus, type FailureKind, type PlatformFailure } from './failure';
import { retryAfterFromHeaders } from '../common/retry-after';
import type { HttpResponse } from './http-exchange';

export interface ErrorCodeRules {
  /** Body field holding the code, e.g. "errcode" or "code". Numbers and numeric strings are read. */
  codeField: string;
  /** Body field holding the platform's own words, e.g. "errmsg" or "msg". */
  messageField: string;
  /** What the codes mean. A code listed nowhere is `rejected` (or what its non-2xx HTTP status says). */
  kinds: Partial<Record<FailureKind, readonly number[]>>;
  /** Explanations a user needs for particular codes, appended to the message. */
  explanations?: Readonly<Record<number, string>>;
  /** The platform's wait hint for a throttled or unavailable answer; default: the Retry-After header. */
  retryAfterSeconds?(res: HttpResponse, code: number): number | undefined;
}

/** The error code of a JSON answer, or undefined when the body has none. */
export function errorCodeOf(res: HttpResponse, field: string): number | undefined {
  const body = res.json;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const raw = (body as Record<string, unknown>)[field];
  if (typeof raw === 'number' && Number.isInteger(raw)) return raw;
  if (typeof raw === 'string' && /^-?\d+$/.test(raw.trim())) return Number(raw);
  return undefined;
}

/**
 * A `checkResponse` for "HTTP 200 + error code" APIs: code 0 (or no code) lets the HTTP status decide; any
 * other code is a failure of the kind the rules give it, worded as `errcode <n>: <platform message>`.
 */
export function checkErrorCode(res: HttpResponse, rules: ErrorCodeRules): PlatformFailure | undefined {
  const code = errorCodeOf(res, rules.codeField);
  if (code === undefined || code === 0) return classifyHttpStatus(res);
  const said = (res.json as Record<string, unknown>)[rules.messageField];
  const explanation = rules.explanations?.[code];
  const message = [
    `${rules.codeField} ${code}${typeof said === 'string' && said ? `: ${said}` : ''}`,
    res.status >= 300 ? ` (HTTP ${res.status})` : '',
    explanation ? `. ${explanation}` : '',
  ].join('');
  const listed = (Object.keys(rules.kinds) as FailureKind[]).find((kind) => rules.kinds[kind]!.includes(code));
  const kind: FailureKind = listed ?? classifyHttpStatus(res)?.kind ?? 'rejected';
  if (kind === 'rate_limited' || kind === 'unavailable') {
    return { kind, message, retryAfterSeconds: rules.retryAfterSeconds?.(res, code) ?? retryAfterFromHeaders(res.headers) };
  }
  return { kind, message };
}
