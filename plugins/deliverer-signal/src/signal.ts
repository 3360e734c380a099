// signal: Signal through the signal-cli daemon's HTTP JSON-RPC endpoint
// (`signal-cli -a <account> daemon --http=127.0.0.1:8080`): POST /api/v1/rpc, method `send` with `account`
// and `recipient`, or `groupId` for group targets. GET /api/v1/check is the start() check. Failures are read
// the way signal-cli reports them: per recipient in `results` (type, retryAfterSeconds), and as JSON-RPC
// errors whose `data.response` carries those results when no recipient got the message.
import { definePlatform, joinUrl, platformOptionsSchema, type HttpResponse, type PlatformOptions, type ResponseVerdict } from '@hookwise/kit/platform';

export interface JsonRpcDaemonOptions extends PlatformOptions {
  api_base: string;
  account: string;
}

/** Signal shows longer bodies as a "read more" attachment; 2000 keeps every chunk an ordinary message. */
export const MESSAGE_LIMIT = 2000;
/** `group:<id>`: the group id as signal-cli lists it (listGroups, base64). */
export const GROUP_PREFIX = 'group:';
/** `group.<...>`: the same id as signal-cli-rest-api writes it (base64 of the base64 id). */
export const REST_GROUP_PREFIX = 'group.';
/**
 * Signal documents no per-chat rate; its server answers a burst with rate-limit failures. One message a
 * second keeps the parts of one answer in order and clear of that.
 */
export const CHAT_PACE_MS = 1000;

const E164 = /^\+[1-9]\d{6,14}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A Signal (v2) group id: 32 bytes in base64. */
const GROUP_ID = /^[A-Za-z0-9+/]{42,43}={0,2}$/;

/** The groupId signal-cli wants for a group target, or undefined when the target is no group. */
export function groupIdOf(target: string): string | undefined {
  if (target.startsWith(GROUP_PREFIX)) return target.slice(GROUP_PREFIX.length);
  if (target.startsWith(REST_GROUP_PREFIX)) return Buffer.from(target.slice(REST_GROUP_PREFIX.length), 'base64').toString('utf8');
  return undefined;
}

function targetProblem(target: string): string | undefined {
  const group = groupIdOf(target);
  if (group !== undefined) return GROUP_ID.test(group) ? undefined : 'it names no Signal group id (base64 of 32 bytes, as signal-cli listGroups shows it)';
  return E164.test(target) || UUID.test(target) ? undefined : 'it is neither a phone number in E.164 (+4915112345678) nor a Signal UUID';
}

/** signal-cli's per-recipient outcome (JsonSendMessageResult). */
interface SendResult {
  recipientAddress?: { number?: string | null; uuid?: string | null };
  type?: 'SUCCESS' | 'NETWORK_FAILURE' | 'UNREGISTERED_FAILURE' | 'IDENTITY_FAILURE' | 'RATE_LIMIT_FAILURE' | 'INVALID_PRE_KEY_FAILURE' | string;
  retryAfterSeconds?: number;
  token?: string;
}

interface RpcReply {
  result?: { timestamp?: number; results?: SendResult[] };
  error?: { code?: number; message?: string; data?: { response?: { timestamp?: number; results?: SendResult[] } } | null };
}

/** signal-cli's own JSON-RPC error codes (SignalJsonRpcCommandHandler). */
const USER_ERROR = -1;
const IO_ERROR = -3;
const UNTRUSTED_KEY_ERROR = -4;
const RATELIMIT_ERROR = -5;

function who(r: SendResult): string {
  return r.recipientAddress?.number ?? r.recipientAddress?.uuid ?? '?';
}

/** The verdict when no recipient got the message, from the per-recipient failures. */
function allFailed(results: SendResult[], said: string): ResponseVerdict {
  const list = results.map((r) => `${who(r)}: ${r.type}`).join(', ');
  const message = `${said}${list ? ` (${list})` : ''}`;
  const types = new Set(results.map((r) => r.type));
  if (types.has('RATE_LIMIT_FAILURE')) {
    const waits = results.map((r) => r.retryAfterSeconds).filter((s): s is number => typeof s === 'number');
    const proof = results.some((r) => r.token) ? '; Signal asks for a captcha or proof (signal-cli submitRateLimitChallenge)' : '';
    return { kind: 'rate_limited', message: `${message}${proof}`, retryAfterSeconds: waits.length ? Math.max(...waits) : undefined };
  }
  // A network failure (or a stale pre-key) is temporary: the same send may succeed later.
  if (types.has('NETWORK_FAILURE') || types.has('INVALID_PRE_KEY_FAILURE')) return { kind: 'unavailable', message };
  if (types.has('IDENTITY_FAILURE')) {
    return { kind: 'target', message: `${message}: the recipient's safety number changed; trust it with signal-cli trust before answers can reach them` };
  }
  if (types.has('UNREGISTERED_FAILURE')) return { kind: 'target', message: `${message}: the recipient is not registered on Signal` };
  return { kind: 'unavailable', message };
}

/** JSON-RPC errors arrive with HTTP 200; per-recipient failures inside `results` too. */
export function checkRpcResponse(res: HttpResponse): ResponseVerdict | undefined {
  if (res.status >= 300) {
    if (res.status === 404)
      return { kind: 'rejected', message: `HTTP 404: no JSON-RPC endpoint at /api/v1/rpc; start signal-cli with 'daemon --http' and point api_base at it` };
    return undefined; // the status decides
  }
  // Only JSON-RPC replies are read here; the body-less answer of /api/v1/check is judged by its status.
  if (res.json === undefined) return undefined;
  const reply = res.json as RpcReply;
  if (reply.error) {
    const { code, message: text = 'unknown' } = reply.error;
    const said = `JSON-RPC error ${code ?? '?'}: ${text}`;
    const results = reply.error.data?.response?.results ?? [];
    if (code === RATELIMIT_ERROR) return allFailed(results.length ? results : [{ type: 'RATE_LIMIT_FAILURE' }], said);
    if (code === UNTRUSTED_KEY_ERROR) return allFailed(results.length ? results : [{ type: 'IDENTITY_FAILURE' }], said);
    if (results.length) return allFailed(results, said);
    // "User +49... is not registered." is the sending account; "The user ... is not registered." a recipient.
    if (/^User .* is not registered/i.test(text)) return { kind: 'auth', message: said };
    if (/not registered|invalid (phone )?number|invalid group id|group not found|not a member/i.test(text)) return { kind: 'target', message: said };
    if (code === -32601 || code === -32602 || code === -32600) return { kind: 'rejected', message: said };
    if (code === USER_ERROR) return { kind: 'rejected', message: said };
    if (code === IO_ERROR) return { kind: 'unavailable', message: said };
    return { kind: 'unavailable', message: said };
  }
  const results = reply.result?.results ?? [];
  const failed = results.filter((r) => r.type && r.type !== 'SUCCESS');
  if (failed.length && failed.length === results.length) return allFailed(results, 'not delivered');
  // A group send that reached some members: sending again would repeat it to those who have it.
  if (failed.length) return { kind: 'partial', message: failed.map((r) => `${who(r)}: ${r.type}`).join(', '), failed: failed.map(who) };
  return undefined;
}

export const signalPlatform = definePlatform<JsonRpcDaemonOptions>({
  id: 'signal',
  aliases: ['platform_04'],
  title: 'Signal',
  description: 'Sends answers as Signal messages through a signal-cli daemon (HTTP JSON-RPC).',
  limit: MESSAGE_LIMIT,
  maxParts: 10,
  paceMs: CHAT_PACE_MS,
  targets: {
    format: 'a phone number in E.164 (+4915112345678), a Signal UUID, or a group as group:<id> (signal-cli listGroups) or group.<id> (signal-cli-rest-api)',
    check: (target) => targetProblem(target),
  },
  optionsSchema: platformOptionsSchema({
    properties: {
      account: { type: 'string', minLength: 2, description: 'The signal-cli account that sends, e.g. +4915112345678.' },
    },
    required: ['account'],
  }),
  secrets: () => [],
  credentialsHint: 'check platforms.signal.account: it must be registered or linked in signal-cli (signal-cli -a <account> register|link)',
  request: (chunk, o) => {
    const group = groupIdOf(chunk.target);
    return {
      method: 'POST',
      url: joinUrl(o.api_base, '/api/v1/rpc'),
      json: {
        jsonrpc: '2.0',
        method: 'send',
        params: { account: o.account, ...(group ? { groupId: group } : { recipient: [chunk.target] }), message: chunk.text },
        id: `${chunk.deliveryId}-${chunk.index}`,
      },
    };
  },
  checkResponse: checkRpcResponse,
  // signal-cli-jsonrpc(5): a send answers {"result": {"timestamp": ...}}; the timestamp is the message's id.
  success: { describe: 'a result with the message timestamp', test: (res) => typeof (res.json as RpcReply | undefined)?.result?.timestamp === 'number' },
  messageId: (res) => {
    const ts = (res.json as RpcReply | undefined)?.result?.timestamp;
    return ts === undefined ? undefined : String(ts);
  },
  async start({ call, options, logger }) {
    await call({ method: 'GET', url: joinUrl(options.api_base, '/api/v1/check') });
    logger.info(`signal (Signal): signal-cli daemon at ${options.api_base} is running`);
  },
});
