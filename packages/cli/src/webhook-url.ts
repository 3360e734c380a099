// Addresses of the gateway as the CLI shows them (to put into a sender) and as it reaches them (to send a test).
import type { HookwiseConfig } from '@hookwise/gateway';

const ANY_INTERFACE = new Set(['0.0.0.0', '::', '']);

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** `platforms.webhook.extra.public_url` when set, else `http://localhost:<port>` on all interfaces, else the host. */
export function publicBaseUrl(config: HookwiseConfig): string {
  const extra = config.platforms.webhook.extra;
  if (extra.public_url) return extra.public_url.replace(/\/+$/, '');
  const host = ANY_INTERFACE.has(extra.host) ? 'localhost' : extra.host;
  return `http://${hostForUrl(host)}:${extra.port}`;
}

/** Where a command on this machine reaches the gateway: the loopback address when it binds all interfaces. */
export function localBaseUrl(config: HookwiseConfig): string {
  const extra = config.platforms.webhook.extra;
  const host = extra.host === '::' ? '::1' : ANY_INTERFACE.has(extra.host) ? '127.0.0.1' : extra.host;
  return `http://${hostForUrl(host)}:${extra.port}`;
}

/** The path a route is served at: a profile's routes under `/p/<profile>/` (the default profile's unprefixed). */
export function webhookPath(route: string, profile?: string): string {
  return `${profile ? `/p/${encodeURIComponent(profile)}` : ''}/webhooks/${encodeURIComponent(route)}`;
}

export function webhookUrl(baseUrl: string, route: string, profile?: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${webhookPath(route, profile)}`;
}
