// What the admin API's GET /api/mcp and the dashboard's MCP Events panel show: the clients of `mcp.clients` and the
// subscriptions in the store (what `hookwise mcp clients|subscriptions` list), with each webhook subscription's
// deliveries since the gateway started. Never a token or a secret; callback URLs without their query.
import type { Gateway, ListedMcpClient, ListedMcpSubscription } from '@hookwise/gateway';

export interface McpOverview {
  /** Whether the gateway serves MCP Events or has a `source: mcp-events` route: otherwise there is nothing to show. */
  inUse: boolean;
  clients: ListedMcpClient[];
  subscriptions: ListedMcpSubscription[];
}

/** The default profile's: `mcp:` is set for the whole process, and only the default profile serves /mcp. */
export async function mcpOverview(gateway: Gateway): Promise<McpOverview> {
  const events = gateway.features.mcpEvents;
  if (!events.inUse) return { inUse: false, clients: [], subscriptions: [] };
  return { inUse: true, clients: events.clientListing(), subscriptions: await events.subscriptionListing() };
}
