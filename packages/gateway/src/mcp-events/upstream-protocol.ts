// What the gateway, as an MCP Events client (`source: mcp-events`), sends to an upstream's events/subscribe and
// reads of its answer, so that both readings of the Events design understand it: SEP-3415's text (the server makes
// the secret, answers `subscriptionId`, `secret`, `expiresAt`, `ttl` seconds; refresh by `subscriptionId`; errors
// -32023 NotFound, -32024 Forbidden, -32026 Unsupported) and the experimental design sketch that mcp-handler
// implements (the client makes the secret, `arguments` and `delivery.secret` required, `ttlMs`; the answer is
// `id`, `refreshBefore`, `cursor`, `truncated`; the key refreshes; errors -32011 not found, -32012 forbidden,
// -32013 exhausted, -32014 unsupported, -32015 callback verification failed). Unknown params are ignored by both.
import { newWebhookSecret } from '../observe/lifecycle-webhooks';
import { isSubscriptionSecret } from './subscribe-params';

/** Not found in either family: the subscription (or event type) is unknown to the upstream. */
export const NOT_FOUND_CODES: readonly number[] = [-32023, -32011];
/** What each code of either family means, for the log. */
const CODE_NAMES: Record<number, string> = {
  [-32023]: 'not found',
  [-32024]: 'forbidden',
  [-32026]: 'unsupported',
  [-32011]: 'not found',
  [-32012]: 'forbidden (authentication or authorization)',
  [-32013]: 'resource exhausted',
  [-32014]: 'unsupported',
  [-32015]: 'callback verification failed',
};

/** A secret either reading accepts: the one held when it is one (so a refresh changes nothing), else a new one. */
export function upstreamSecret(held: string | undefined): string {
  return isSubscriptionSecret(held) ? held : newWebhookSecret();
}

export interface SubscribeInput {
  event: string;
  arguments?: Record<string, unknown>;
  callback: string;
  secret: string;
  ttlSeconds: number;
}

export function subscribeParams(input: SubscribeInput): Record<string, unknown> {
  return {
    name: input.event,
    arguments: input.arguments ?? {},
    delivery: { mode: 'webhook', url: input.callback, secret: input.secret },
    ttlMs: input.ttlSeconds * 1000,
    ttl: input.ttlSeconds,
  };
}

export interface Subscribed {
  id: string;
  idField: 'subscriptionId' | 'id';
  /** The server's secret when it answered one, else the one sent. */
  secret: string;
  expiresAt?: string;
  /** The TTL granted, when the answer says it (`ttl` seconds). */
  ttlMs?: number;
}

/** Reads an events/subscribe answer of either reading. */
export function readSubscribed(answer: Record<string, unknown>, sent: string): Subscribed {
  const id = typeof answer.subscriptionId === 'string' ? answer.subscriptionId : typeof answer.id === 'string' ? answer.id : undefined;
  if (!id) throw new Error('the upstream answered events/subscribe without a subscriptionId or id');
  const expiresAt = typeof answer.expiresAt === 'string' ? answer.expiresAt : typeof answer.refreshBefore === 'string' ? answer.refreshBefore : undefined;
  return {
    id,
    idField: typeof answer.subscriptionId === 'string' ? 'subscriptionId' : 'id',
    secret: typeof answer.secret === 'string' && answer.secret !== '' ? answer.secret : sent,
    expiresAt,
    ttlMs: typeof answer.ttl === 'number' && answer.ttl > 0 ? answer.ttl * 1000 : undefined,
  };
}

export const isNotFound = (err: unknown): boolean => NOT_FOUND_CODES.includes((err as { code?: unknown }).code as number);

/** An upstream's error as the log says it: the code's meaning in either family, and its data's reason or kind. */
export function upstreamError(err: unknown): string | undefined {
  const { code, data } = err as { code?: unknown; data?: unknown };
  if (typeof code !== 'number' || !(code in CODE_NAMES)) return undefined;
  const detail = data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : {};
  const why = ['reason', 'kind', 'feature'].filter((k) => typeof detail[k] === 'string').map((k) => `${k} ${String(detail[k])}`);
  return `${CODE_NAMES[code]} (${code}${why.length ? `, ${why.join(', ')}` : ''})`;
}
