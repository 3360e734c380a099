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
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  internal.addSubnet(net, prefix, 'ipv6');

/** True for an address on this machine or a private network (IPv4-mapped IPv6 addresses included). */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return internal.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 4) return internal.check(address, 'ipv4');
  if (family === 6) return internal.check(address, 'ipv6');
  return true;
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
