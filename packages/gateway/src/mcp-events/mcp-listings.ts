// What `hookwise mcp clients` and `hookwise mcp subscriptions` show: the configured MCP clients with the event
// types they are granted now, and the subscriptions in the store (subscribers' webhooks, and the `source:
// mcp-events` routes' subscriptions to other servers). Never a token or a secret; callback URLs without their query.
import type { MemoKV } from '@hookwise/core';
import type { HookwiseConfig } from '../config/config-types';
import { shownUrl } from '../observe/lifecycle-webhooks';
import { staticRoutes } from '../routes/routes';
import type { DeliveryCounts } from './delivery-tally';
import { EventGrant, eventTypesOf } from './event-types';
import { MIN_MCP_TOKEN_LENGTH } from './mcp-clients';
import { readUpstream, MCP_EVENTS_SOURCE } from './upstream-subscriptions';
import { WebhookBook } from './webhook-book';

export interface ListedMcpClient {
  name: string;
  tokenEnv: string;
  /** Whether the variable holds a usable token (its value is never shown). */
  tokenSet: boolean;
  patterns: string[];
  /** The event types the patterns grant among config.yaml's routes. */
  types: string[];
}

export interface ListedMcpSubscription {
  /** `webhook`: a client's subscription to this gateway; `upstream`: a route's subscription to another server. */
  kind: 'webhook' | 'upstream';
  id: string;
  /** The client (webhook) or the route (upstream). */
  holder: string;
  /** The event type. */
  name: string;
  /** Where the events go (webhook) or come from (upstream), without a query. */
  url: string;
  expiresAt: string;
  expired: boolean;
  /** A webhook subscription's deliveries since the running gateway started (absent when read by the CLI). */
  deliveries?: DeliveryCounts;
}

export function mcpClientListing(config: HookwiseConfig, env: NodeJS.ProcessEnv): ListedMcpClient[] {
  const types = eventTypesOf([...staticRoutes(config).values()]);
  return Object.entries(config.mcp?.clients ?? {}).map(([name, client]) => {
    const grant = new EventGrant(client.events);
    return {
      name,
      tokenEnv: client.token_env,
      tokenSet: (env[client.token_env] ?? '').length >= MIN_MCP_TOKEN_LENGTH,
      patterns: client.events,
      types: types.filter((type) => grant.allows(type)).map((type) => type.name),
    };
  });
}

export async function mcpSubscriptionListing(memos: MemoKV, config: HookwiseConfig, now = Date.now()): Promise<ListedMcpSubscription[]> {
  const webhooks = (await new WebhookBook(memos, () => now).all()).map((s): ListedMcpSubscription => ({
    kind: 'webhook',
    id: s.id,
    holder: s.client,
    name: s.name,
    url: shownUrl(s.url),
    expiresAt: new Date(s.expiresAt).toISOString(),
    expired: false,
  }));
  const upstream: ListedMcpSubscription[] = [];
  for (const route of staticRoutes(config).values()) {
    if (route.source !== MCP_EVENTS_SOURCE) continue;
    const held = await readUpstream(memos, route.name);
    if (!held) continue;
    const options = (route.sourceOptions ?? {}) as { server?: string; event?: string };
    upstream.push({
      kind: 'upstream',
      id: held.id,
      holder: route.name,
      name: options.event ?? '',
      url: shownUrl(options.server ?? ''),
      expiresAt: new Date(held.expiresAt).toISOString(),
      expired: held.expiresAt <= now,
    });
  }
  return [...webhooks, ...upstream];
}
