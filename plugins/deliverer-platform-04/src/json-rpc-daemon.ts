// platform_04: Signal through the signal-cli daemon's HTTP JSON-RPC endpoint (`signal-cli -a <account>
// daemon --http=127.0.0.1:8080`): POST /api/v1/rpc, method `send` with `account` and `recipient`, or
// `groupId` for targets written `group:<id>`. GET /api/v1/check is the start() check.
import { definePlatform, joinUrl, platformOptionsSchema, type HttpResponse, type PlatformFailure, type PlatformOptions } from '@hookwise/kit';

export interface JsonRpcDaemonOptions extends PlatformOptions {
  api_base: string;
  account: string;
}

/** Signal shows longer bodies as a "read more" attachment; 2000 keeps every chunk an ordinary message. */
export const MESSAGE_LIMIT = 2000;
export const GROUP_PREFIX = 'group:';

interface RpcReply {
  result?: { timestamp?: number; results?: Array<{ type?: string; recipientAddress?: { number?: string; uuid?: string } }> };
  error?: { code?: number; message?: string };
}

/** JSON-RPC errors arrive with HTTP 200; per-recipient failures inside `results` too. */
export function checkRpcResponse(res: HttpResponse): PlatformFailure | undefined {
  if (res.status >= 300) {
    if (res.status === 404) return { kind: 'rejected', message: `HTTP 404: no JSON-RPC endpoint at /api/v1/rpc; start signal-cli with 'daemon --http' and point api_base at it` };
    return undefined; // the status decides
  }
  // Only JSON-RPC replies are read here; the body-less answer of /api/v1/check is judged by its status.
  if (res.json === undefined) return undefined;
  const reply = res.json as RpcReply;
  if (reply.error) {
    const message = `JSON-RPC error ${reply.error.code ?? '?'}: ${reply.error.message ?? 'unknown'}`;
    const text = reply.error.message ?? '';
    if (/rate ?limit/i.test(text)) return { kind: 'rate_limited', message };
    if (/account|not registered|unregistered|authoriz/i.test(text) && !/recipient/i.test(text)) return { kind: 'auth', message };
    if (/recipient|group|invalid.*number|unknown|not found/i.test(text)) return { kind: 'target', message };
    if (reply.error.code === -32601 || reply.error.code === -32602 || reply.error.code === -32600) return { kind: 'rejected', message };
    return { kind: 'unavailable', message };
  }
  const failed = (reply.result?.results ?? []).filter((r) => r.type && r.type !== 'SUCCESS');
  if (failed.length && failed.length === (reply.result?.results ?? []).length) {
    return { kind: 'target', message: `not delivered: ${failed.map((r) => r.type).join(', ')}` };
  }
  if (reply.result === undefined) return { kind: 'unavailable', message: `unexpected reply: ${res.text.slice(0, 200)}` };
  return undefined;
}

export const jsonRpcDaemonPlatform = definePlatform<JsonRpcDaemonOptions>({
  id: 'platform_04',
  title: 'Signal',
  description: 'Sends answers as Signal messages through a signal-cli daemon (HTTP JSON-RPC).',
  limit: MESSAGE_LIMIT,
  optionsSchema: platformOptionsSchema({
    properties: {
      account: { type: 'string', minLength: 2, description: 'The signal-cli account that sends, e.g. +4915112345678.' },
    },
    required: ['account'],
  }),
  secrets: () => [],
  credentialsHint: 'check platforms.platform_04.account: it must be registered or linked in signal-cli (signal-cli -a <account> register|link)',
  request: (chunk, o) => {
    const group = chunk.target.startsWith(GROUP_PREFIX) ? chunk.target.slice(GROUP_PREFIX.length) : undefined;
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
  messageId: (res) => {
    const ts = (res.json as RpcReply | undefined)?.result?.timestamp;
    return ts === undefined ? undefined : String(ts);
  },
  async start({ call, options, logger }) {
    await call({ method: 'GET', url: joinUrl(options.api_base, '/api/v1/check') });
    logger.info(`platform_04 (Signal): signal-cli daemon at ${options.api_base} is running`);
  },
});
