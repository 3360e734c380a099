// The address a request comes from, for the failed-authentication throttle: the TCP peer, or behind proxies
// listed in `trusted_proxies`, the nearest X-Forwarded-For hop that is not one of them.
import { BlockList, isIP } from 'node:net';
import { headerValue, type HeaderMap } from '@hookwise/core';

/** `::ffff:1.2.3.4` (an IPv4 client on a dual-stack socket) is 1.2.3.4. */
function plain(address: string): string {
  const trimmed = address.trim();
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(trimmed) ? trimmed.slice(7) : trimmed;
}

/** Why an entry of `trusted_proxies` is not an address or CIDR range, or undefined when it is one. */
export function trustedProxyProblem(entry: string): string | undefined {
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (!family || extra !== undefined) return `'${entry}' is not an IP address or CIDR range (e.g. 10.0.0.0/8, ::1)`;
  if (bits === undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max ? undefined : `'${entry}': the prefix length must be 0-${max}`;
}

/**
 * The addresses whose X-Forwarded-For is believed. Empty by default: the header is then never read, because
 * anyone can send it, and a throttle keyed by it would let a forger pick a fresh key per request or lock out
 * another client.
 */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly size: number;

  constructor(entries: readonly string[] = []) {
    for (const entry of entries) {
      const [address, bits] = entry.split('/');
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.list.addAddress(plain(address), type);
      else this.list.addSubnet(plain(address), Number(bits), type);
    }
    this.size = entries.length;
  }

  has(address: string): boolean {
    if (this.size === 0) return false;
    const ip = plain(address);
    const family = isIP(ip);
    return family !== 0 && this.list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  }

  /**
   * The client of a request that arrived from `peer`: `peer` itself unless it is a trusted proxy; then the
   * X-Forwarded-For entries from the right (the nearest hop first), skipping trusted proxies. Entries further
   * left were written by whoever sent the request and are never used; an entry that is not an address ends the
   * walk at the last trusted hop.
   */
  clientOf(peer: string | undefined, headers: HeaderMap): string | undefined {
    if (peer === undefined) return undefined;
    let client = plain(peer);
    if (!this.has(client)) return client;
    const forwarded = headerValue(headers, 'x-forwarded-for');
    if (!forwarded) return client;
    const hops = forwarded.split(',');
    for (let i = hops.length - 1; i >= 0; i -= 1) {
      const hop = plain(hops[i]);
      if (!isIP(hop)) return client;
      client = hop;
      if (!this.has(hop)) return hop;
    }
    return client;
  }
}

/**
 * The throttle's key of an address: IPv4 as is, IPv6 by its /64 (one host usually has a whole /64, so keying
 * by the full address would give a forger 2^64 fresh keys).
 */
export function throttleKey(address: string): string {
  const ip = plain(address);
  if (isIP(ip) !== 6) return ip;
  const [head, tail] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, '').toLowerCase())
    .join(':')}::/64`;
}
