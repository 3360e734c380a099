// Where a platform message goes and whether it may go there: deliver_extra.chat_id, else the platform's
// home_channel (SPEC §2.4); each platform's id format; `allowed_targets`, which limits what a templated
// chat_id (one filled from the webhook payload) can reach; and path segments that a hostile id cannot turn
// into another request path.
import { HookwiseError } from '@hookwise/core';

export type TargetSource = 'chat_id' | 'home_channel';

export interface ResolvedTarget {
  target: string;
  /** Where the target came from, for log lines. */
  source: TargetSource;
}

export function resolveTarget(extra: Record<string, string> | undefined, homeChannel: string | undefined, platformId: string): ResolvedTarget {
  const found = optionalTarget(extra, homeChannel);
  if (found) return found;
  throw new HookwiseError(
    'HW_E_DELIVERY_TARGET',
    `${platformId}: no target for this message: set deliver_extra.chat_id on the route or platforms.${platformId}.home_channel in config.yaml`,
    { retryable: false },
  );
}

/** deliver_extra.chat_id, else home_channel, else undefined (for platforms where the target is optional). */
export function optionalTarget(extra: Record<string, string> | undefined, homeChannel: string | undefined): ResolvedTarget | undefined {
  const chatId = extra?.chat_id?.trim();
  if (chatId) return { target: chatId, source: 'chat_id' };
  const home = homeChannel?.trim();
  if (home) return { target: home, source: 'home_channel' };
  return undefined;
}

/** The first non-empty value among `keys` in deliver_extra (for aliases such as message_thread_id / thread_id). */
export function extraValue(extra: Record<string, string> | undefined, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = extra?.[key]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** What a platform's target check sees besides the target. */
export interface TargetContext<O> {
  options: O;
  source: TargetSource;
  /** The route's rendered deliver_extra. */
  extra: Record<string, string>;
}

/** A platform's id format, checked before anything is sent. */
export interface TargetRules<O> {
  /** What a valid target looks like, for error messages, e.g. "a channel id (a snowflake of 17 to 20 digits)". */
  format: string;
  /** Why `target` is not a valid target; undefined when it is. */
  check(target: string, ctx: TargetContext<O>): string | undefined;
  /** The recipients a target names, each checked against allowed_targets (an e-mail list). Default: the target. */
  recipients?(target: string): string[];
}

/** Longer ids are no platform's; the cap also keeps allowed_targets patterns cheap to run. */
export const MAX_TARGET_LENGTH = 512;

/** Line breaks and other control characters: never part of an id, and the start of header or log injection. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Problems every platform refuses, before its own format is checked. */
export function genericTargetProblem(target: string): string | undefined {
  if (target.length > MAX_TARGET_LENGTH) return `it is ${target.length} characters long (at most ${MAX_TARGET_LENGTH})`;
  if (CONTROL.test(target)) return 'it contains a line break or another control character';
  return undefined;
}

/** A target as shown in a message: quoted with control characters escaped, and cut short when long. */
export function showTarget(target: string): string {
  const shown = target.length > 80 ? `${target.slice(0, 80)}...` : target;
  return JSON.stringify(shown);
}

/**
 * A value that goes into one segment of a request path (a channel id, a room id), percent-encoded. `.` and
 * `..` are refused outright: percent-encoding leaves dots alone and URL parsing resolves them, so
 * `/channels/../messages` would become `/messages`.
 */
export function pathSegment(value: string, label: string): string {
  if (value === '' || value === '.' || value === '..') {
    throw new HookwiseError('HW_E_DELIVERY_TARGET', `${label}: refused target ${showTarget(value)}: it would change the request path; use a real id`, {
      retryable: false,
    });
  }
  return encodeURIComponent(value);
}

/**
 * `allowed_targets` as a test: exact ids, or `/pattern/` (`/pattern/i`) that must match the whole id.
 * Throws a configuration error for a pattern that does not compile.
 */
export function allowedTargetsTest(list: readonly string[] | undefined, where: string): ((id: string) => boolean) | undefined {
  if (!list) return undefined;
  const exact = new Set<string>();
  const patterns: RegExp[] = [];
  for (const entry of list) {
    const m = /^\/(.+)\/(i?)$/s.exec(entry);
    if (!m) {
      exact.add(entry);
      continue;
    }
    try {
      patterns.push(new RegExp(`^(?:${m[1]})$`, m[2]));
    } catch (err) {
      throw new HookwiseError(
        'HW_E_CONFIG',
        `${where}: ${JSON.stringify(entry)} is not a valid pattern (${(err as Error).message}); write /regex/ or an exact id`,
        { retryable: false },
      );
    }
  }
  return (id) => exact.has(id) || patterns.some((re) => re.test(id));
}
