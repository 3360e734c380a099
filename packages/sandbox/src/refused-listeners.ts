// The proxy owner's own listeners (the gateway's webhook, admin and metrics port): never a destination for
// an agent, whatever its `network` list says. An agent that may reach `localhost` for a dev server must still
// not reach the gateway's admin API on the same loopback.
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { normaliseHost } from './network-rules';

/** A listening socket of the proxy's owner: the host it is bound to (`0.0.0.0`, `::`, `127.0.0.1`, `localhost`, an address) and its port. */
export interface RefusedListener {
  host: string;
  port: number;
}

/**
 * Does a connection to `address:port` (an address the proxy resolved) end at one of the listeners? A listener
 * bound to the any-address (`0.0.0.0`, `::`, or `''`) answers on every address of this machine: loopback and
 * every interface's; one bound to loopback (or `localhost`) on every loopback address; one bound to another
 * name on any of this machine's addresses; else on its address.
 */
export function reachesListener(listeners: readonly RefusedListener[], address: string, port: number): RefusedListener | undefined {
  const plain = plainAddress(address);
  return listeners.find((listener) => {
    if (listener.port !== port) return false;
    const host = plainAddress(normaliseHost(listener.host));
    if (host === '' || host === '0.0.0.0' || host === '::') return isLoopback(plain) || isUnspecified(plain) || machineAddresses().has(plain);
    if (host === 'localhost' || isLoopback(host)) return isLoopback(plain);
    // A name the server was bound to resolved to an address of this machine: any of them may be it.
    if (!isIP(host)) return isLoopback(plain) || machineAddresses().has(plain);
    return host === plain;
  });
}

function plainAddress(address: string): string {
  return address.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
}

function isLoopback(address: string): boolean {
  return address === '::1' || (isIP(address) === 4 && address.startsWith('127.'));
}

function isUnspecified(address: string): boolean {
  return address === '0.0.0.0' || address === '::';
}

/** This machine's interface addresses, read at most once a second (interfaces come and go). */
let cached: { at: number; addresses: Set<string> } | undefined;
function machineAddresses(): Set<string> {
  if (!cached || Date.now() - cached.at > 1000) {
    const addresses = new Set<string>();
    for (const list of Object.values(networkInterfaces())) for (const entry of list ?? []) addresses.add(plainAddress(entry.address.replace(/%.*$/, '')));
    cached = { at: Date.now(), addresses };
  }
  return cached.addresses;
}
