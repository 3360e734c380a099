// The `agent.sandbox.network` allowlist: parsing its entries and deciding whether a (host, port) and the
// address it resolved to may be reached.
import { BlockList, isIP } from 'node:net';
import { HookwiseConfigError } from '@hookwise/core';

export interface NetworkRule {
  /** Lower-case host name or IP literal (IPv6 without brackets), no trailing dot. */
  host: string;
  /** Undefined: any port. */
  port?: number;
}

/**
 * Parses "host" or "host:port" entries ("[::1]:8080" for IPv6 with a port). Throws a HookwiseConfigError
 * listing every bad entry; `where` names the config key.
 */
export function parseNetworkList(entries: readonly string[], where = 'agent.sandbox.network'): NetworkRule[] {
  const rules: NetworkRule[] = [];
  const problems: string[] = [];
  entries.forEach((entry, index) => {
    const rule = parseEntry(String(entry).trim());
    if (typeof rule === 'string') problems.push(`${where}[${index}] '${entry}' ${rule}`);
    else rules.push(rule);
  });
  if (problems.length > 0) throw new HookwiseConfigError(problems);
  return rules;
}

function parseEntry(entry: string): NetworkRule | string {
  if (entry === '') return 'is empty: write a host name ("api.example.com") or "host:port"';
  if (entry.includes('/') || entry.includes('@') || entry.includes('*'))
    return 'is not a host: write only the host name or "host:port" (no scheme, path, user or wildcard)';
  let host = entry;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
  if (bracketed) [, host, portText] = bracketed;
  else if (isIP(entry) !== 6 && entry.includes(':')) [host, portText] = splitLast(entry);
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65535)) return `has port '${portText}': use 1-65535`;
  const name = normaliseHost(host);
  if (!isIP(name) && !/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(name)) return 'is not a valid host name';
  return { host: name, port };
}

function splitLast(text: string): [string, string] {
  const at = text.lastIndexOf(':');
  return [text.slice(0, at), text.slice(at + 1)];
}

/** Lower case, IPv6 brackets and a trailing dot removed: how hosts are compared. */
export function normaliseHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  if (name.endsWith('.')) name = name.slice(0, -1);
  return name;
}

/** The rule that lets `host:port` through, if any. */
export function findRule(rules: readonly NetworkRule[], host: string, port: number): NetworkRule | undefined {
  const name = normaliseHost(host);
  return rules.find((rule) => rule.host === name && (rule.port === undefined || rule.port === port));
}

// Loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, unspecified,
// benchmarking, multicast and reserved ranges: what an allowed public name must not resolve to.
const internal = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  internal.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  // NAT64 for local use (RFC 8215): the network behind it is the operator's own.
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  // Site-local (deprecated, still routed inside some networks).
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  internal.addSubnet(net, prefix, 'ipv6');

/** True for an address on this machine or a private network, also when an IPv6 address carries such an IPv4 one. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return internal.check(address, 'ipv4');
  if (family !== 6) return true;
  const embedded = embeddedIPv4(address);
  if (embedded !== undefined) return internal.check(embedded, 'ipv4');
  return internal.check(address, 'ipv6');
}

/**
 * The IPv4 address an IPv6 address stands for, where the host that receives the packet is that IPv4 host:
 * IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96, but :: and ::1), NAT64 (64:ff9b::/96) and 6to4
 * (2002::/16, the IPv4 address in bits 16-47).
 */
export function embeddedIPv4(address: string): string | undefined {
  const words = ipv6Words(address);
  if (!words) return undefined;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zero = (from: number, to: number) => words.slice(from, to).every((word) => word === 0);
  if (zero(0, 5) && words[5] === 0xffff) return v4(words[6], words[7]);
  if (zero(0, 6) && (words[6] !== 0 || words[7] > 1)) return v4(words[6], words[7]);
  if (words[0] === 0x64 && words[1] === 0xff9b && zero(2, 6)) return v4(words[6], words[7]);
  if (words[0] === 0x2002) return v4(words[1], words[2]);
  return undefined;
}

/** The eight 16-bit words of an IPv6 address (a trailing dotted IPv4 part and a zone allowed). */
function ipv6Words(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((word) => parseInt(word, 16)));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const words = halves.length === 2 ? [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail] : head;
  return words.length === 8 && words.every((word) => Number.isInteger(word) && word >= 0 && word <= 0xffff) ? words : undefined;
}

/**
 * May the address `host` resolved to be connected to? A public address: yes. An internal one only when the
 * user named it: the rule's host is that very address, or `localhost` resolving to loopback, or the address
 * itself is listed. So a listed public name that DNS points at 127.0.0.1 or 169.254.169.254 (DNS rebinding)
 * is refused; an internal host name needs its address listed as well (`network: [git.lan, 10.0.0.5]`).
 */
export function addressAllowed(rules: readonly NetworkRule[], rule: NetworkRule, address: string, port: number): boolean {
  if (!isInternalAddress(address)) return true;
  const plain = address.replace(/^::ffff:(?=\d+\.)/i, '').toLowerCase();
  if (rule.host === plain) return true;
  if (rule.host === 'localhost' && (plain.startsWith('127.') || plain === '::1')) return true;
  return findRule(rules, plain, port) !== undefined;
}
