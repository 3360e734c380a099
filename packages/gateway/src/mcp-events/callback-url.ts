// Where an MCP Events subscriber may have its events posted: a callback URL is given by a client, so the gateway
// must not become its way into the gateway's own network. A callback is https and resolves to public addresses
// only; `mcp.webhooks.allow_loopback` lets it be this machine (over http too), for tests and a subscriber on the
// same host. Checked when subscribing and again before every post (a name may resolve elsewhere later).
import { lookup } from 'node:dns/promises';
import { isInternalAddress } from '@hookwise/sandbox';
import { isLoopbackHost } from '../config/loopback-host';

export interface CallbackPolicy {
  allowLoopback: boolean;
}

const MAX_URL_LENGTH = 2048;

/** A resolved address of this machine: 127.0.0.0/8, ::1, and 127.x mapped into IPv6. */
function isLoopbackAddress(address: string): boolean {
  return isLoopbackHost(address.replace(/^::ffff:(?=\d+\.)/i, ''));
}

/** The URL, or why it cannot be a callback (without resolving its host). */
export function parseCallbackUrl(raw: unknown, policy: CallbackPolicy): URL | string {
  if (typeof raw !== 'string' || raw === '') return 'delivery.url: the callback URL is required';
  if (raw.length > MAX_URL_LENGTH) return `delivery.url: at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'delivery.url: not a URL (write it as https://host/path)';
  }
  if (url.username || url.password) return 'delivery.url: credentials in the URL are not accepted (the events are signed with the subscription secret)';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = isLoopbackHost(host);
  if (loopback && !policy.allowLoopback) return 'delivery.url: callbacks to this machine are not accepted by this server';
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && loopback) return url;
  return 'delivery.url: the callback must be https';
}

/** Why the URL's host may not be posted to now (it resolves to an internal address), or undefined. */
export async function callbackReachProblem(url: URL, policy: CallbackPolicy): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch (err) {
    return `the callback host ${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  for (const address of addresses) {
    if (isLoopbackAddress(address)) {
      if (!policy.allowLoopback) return `the callback host ${host} resolves to this machine (${address}), which callbacks may not reach`;
      continue;
    }
    if (isInternalAddress(address)) return `the callback host ${host} resolves to an internal address (${address}), which callbacks may not reach`;
  }
  return undefined;
}
