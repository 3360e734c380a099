// Matrix application services: the homeserver PUTs batches of room events to
// `<appservice url>/_matrix/app/v1/transactions/<txnId>` with `Authorization: Bearer <hs_token>` (older homeservers:
// `?access_token=<hs_token>`, and the path without `/_matrix/app/v1`). Give the homeserver the route's URL as the
// appservice `url`: the path it appends arrives below the route (`/webhooks/<route>/_matrix/...`), which this source
// takes. The hs_token is the route's secret; the txnId is the delivery id; the answer is 200 `{}`.
import { matrixReplyOf, matrixSenderOf } from './matrix-replies';
import { headerValue, type HandshakeAnswer, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import { anyConstantTimeEqual, defineSource, isPayloadObject, matchingSecretIndex } from '@hookwise/kit/source';
import { matrixPayloadSchema } from './payload-schema';

/** The event type of a transaction whose events are not all of one type (or that holds none). */
export const MIXED_TRANSACTION_EVENT = 'transaction';

const TRANSACTION_PATH = /\/(?:_matrix\/app\/v1\/)?transactions\/([^/?#]+)$/;
const PING_PATH = /\/_matrix\/app\/v1\/ping$/;

function pathAndQuery(req: SourceRequest): { path: string; query: URLSearchParams } {
  try {
    const url = new URL(req.url);
    return { path: url.pathname, query: url.searchParams };
  } catch {
    return { path: '', query: new URLSearchParams() };
  }
}

/** The txnId of a transaction request (`.../transactions/<txnId>`), or undefined for any other path. */
export function matrixTransactionId(req: SourceRequest): string | undefined {
  const match = TRANSACTION_PATH.exec(pathAndQuery(req).path);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

/** The type every event of the transaction shares (`m.room.message`, `m.room.member`, ...), else `transaction`. */
export function matrixEventType(payload: Record<string, unknown>): string {
  const events = Array.isArray(payload.events) ? payload.events : [];
  const types = new Set(events.map((event: unknown) => (event !== null && typeof event === 'object' ? (event as Record<string, unknown>).type : undefined)));
  const [only] = types;
  return types.size === 1 && typeof only === 'string' && only !== '' ? only : MIXED_TRANSACTION_EVENT;
}

/** The hs_token the homeserver sent: `Authorization: Bearer`, else the legacy `access_token` query parameter. */
function offeredTokens(req: SourceRequest): string[] {
  const tokens: string[] = [];
  const authorization = headerValue(req.headers, 'authorization');
  const bearer = authorization === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (bearer !== undefined) tokens.push(bearer);
  const legacy = pathAndQuery(req).query.get('access_token');
  if (legacy !== null && legacy !== '') tokens.push(legacy);
  return tokens;
}

export function verifyHsToken(req: SourceRequest, secrets: readonly string[]): SourceVerdict {
  const offered = offeredTokens(req);
  if (offered.length === 0) return { ok: false, reason: 'no Authorization: Bearer <hs_token> header and no access_token parameter', missing: true };
  const index = matchingSecretIndex(secrets, (secret) => anyConstantTimeEqual(offered, secret));
  return index >= 0
    ? { ok: true, secretIndex: index }
    : { ok: false, reason: "hs_token does not match (is the route's secret the hs_token of the registration file?)" };
}

/** Ping (`POST .../_matrix/app/v1/ping`) is answered `{}`; a path that is no transaction is answered M_UNRECOGNIZED. */
export function matrixHandshake(req: SourceRequest): HandshakeAnswer | undefined {
  const { path } = pathAndQuery(req);
  if ((req.method ?? 'POST') === 'POST' && PING_PATH.test(path)) return { status: 200, body: {} };
  if ((req.method ?? 'POST') === 'PUT' && matrixTransactionId(req) !== undefined) return undefined;
  return {
    status: 404,
    body: { errcode: 'M_UNRECOGNIZED', error: `Hookwise's Matrix source takes only PUT .../_matrix/app/v1/transactions/<txnId> and POST .../ping` },
  };
}

export interface MatrixSourceOptions {
  ignore_users?: string[];
}

/**
 * A transaction whose messages are all by `ignore_users` (the bot user the matrix deliverer posts as): the homeserver
 * sends an application service every event of its rooms, the gateway's own answers included.
 */
export function matrixOwnMessages(payload: Record<string, unknown>, options: MatrixSourceOptions): boolean {
  const ignored = options.ignore_users ?? [];
  if (!ignored.length || !Array.isArray(payload.events)) return false;
  const messages = payload.events.filter((e): e is Record<string, unknown> => isPayloadObject(e) && e.type === 'm.room.message');
  return messages.length > 0 && messages.every((e) => typeof e.sender === 'string' && ignored.includes(e.sender));
}

export const matrixSource = defineSource<MatrixSourceOptions>({
  id: 'matrix',
  payloadSchema: matrixPayloadSchema,
  description:
    'Matrix application service: PUT .../_matrix/app/v1/transactions/<txnId> with Authorization: Bearer <hs_token> (or ?access_token=), delivery id the txnId, answered 200 {}',
  options: {
    ignore_users: {
      type: 'array',
      items: { type: 'string', pattern: '^@[^:]+:.+$' },
      default: [],
      description:
        "Matrix user ids whose messages are the gateway's own (the bot user the matrix deliverer posts as, e.g. @hookwise:example.org): a transaction of only their messages is ignored (reason own_message) and continues no conversation.",
    },
  },
  style: (options) => ({
    headers: ['authorization'],
    requests: { methods: ['PUT'], subPaths: true },
    eventAnswer: { status: 200, body: {} },
    verify: verifyHsToken,
    handshake: (req) => matrixHandshake(req),
    eventType: (_req, payload) => matrixEventType(payload),
    deliveryId: (req) => matrixTransactionId(req),
    replyOf: matrixReplyOf,
    senderOf: matrixSenderOf,
    ownMessage: (payload) => matrixOwnMessages(payload, options),
  }),
});
