// Whether a bind host or a URL's host is this machine's loopback: what may go without authentication.
import { isIP } from 'node:net';

/** localhost, 127.0.0.0/8 and ::1. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
