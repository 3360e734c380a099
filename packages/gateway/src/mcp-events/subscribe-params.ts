// What events/subscribe and events/unsubscribe read beyond the event type and filter: the TTL (`ttl` in seconds, or
// `ttlMs`), a secret the client chose (`delivery.secret`), and the subscription's key (client, event type,
// arguments, callback URL) by which a subscribe without an id refreshes what the client already holds, and an
// unsubscribe without an id names what it ends. Both readings of the Events design are accepted: the server-made
// secret and the id of SEP-3415's text, and the client-made secret and key of the experimental design sketch (as
// mcp-handler implements it).
import { notifyKey } from '../observe/lifecycle-webhooks';
import { invalidParams } from './events-errors';

export const DEFAULT_TTL_SECONDS = 3600;
export const MIN_TTL_SECONDS = 60;
export const MAX_TTL_SECONDS = 86_400;

const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
export const SECRET_RULE = `delivery.secret: "whsec_" followed by the base64 of ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} random bytes`;

/** A secret either reading of the design takes: `whsec_` and whole base64 of 24 to 64 bytes. */
export function isSubscriptionSecret(value: unknown): value is string {
  if (typeof value !== 'string' || !value.startsWith('whsec_')) return false;
  const key = notifyKey(value);
  return key !== undefined && key.length >= MIN_SECRET_BYTES && key.length <= MAX_SECRET_BYTES;
}

/** The TTL granted, in ms: `ttlMs` when given, else `ttl` (seconds), else the default; within the bounds. */
export function grantedTtlMs(params: Record<string, unknown>): number {
  const { ttl, ttlMs } = params;
  if (ttlMs !== undefined && ttlMs !== null) {
    if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) throw invalidParams('ttlMs: a positive number of milliseconds');
    return Math.min(MAX_TTL_SECONDS * 1000, Math.max(MIN_TTL_SECONDS * 1000, Math.round(ttlMs)));
  }
  if (ttl === undefined || ttl === null) return DEFAULT_TTL_SECONDS * 1000;
  if (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl <= 0) throw invalidParams('ttl: a positive number of seconds');
  return Math.min(MAX_TTL_SECONDS, Math.max(MIN_TTL_SECONDS, Math.round(ttl))) * 1000;
}

/** The secret a client chose, checked; undefined when it chose none. The message never repeats the value. */
export function clientSecret(delivery: Record<string, unknown>): string | undefined {
  const secret = delivery.secret;
  if (secret === undefined || secret === null) return undefined;
  if (!isSubscriptionSecret(secret)) throw invalidParams(SECRET_RULE);
  return secret;
}

/** JSON with object keys sorted, so that two equal argument objects compare equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The callback URL of an unsubscribe's key, as a subscription stores it; undefined when it is not a URL. */
export function keyUrl(delivery: unknown): string | undefined {
  const raw = delivery !== null && typeof delivery === 'object' ? (delivery as { url?: unknown }).url : undefined;
  if (typeof raw !== 'string') return undefined;
  try {
    return new URL(raw).href;
  } catch {
    return undefined;
  }
}
