// The names of the Events extension (SEP-3415) this server speaks, and what its MCP endpoint (events-mcp.ts) asks
// of the methods (mcp-events.ts), so that the two modules do not import each other.
import type { McpClient } from './mcp-clients';

export const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';
export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';
/**
 * Sent when the event types a client is granted change. The Events design text (modelcontextprotocol/
 * experimental-ext-triggers-events, docs/design-sketch-proposal.md at 082166f0bae5f93d19f8803f3c0e5cbe92322c69,
 * "Dynamic Event Types") says: "If the set of available event types changes at runtime [...], the server sends a
 * `notifications/events/list_changed` notification. The client SHOULD re-call `events/list` [...]. This is
 * consistent with `notifications/tools/list_changed`". It defines no params, so it carries none but the `_meta`
 * subscription id every notification of a stream has. A stateless server has no GET stream for server notices, so
 * it goes on each open `events/stream`, whose SSE the text has carry `notifications/events/*`.
 */
export const LIST_CHANGED = 'notifications/events/list_changed';

export interface EventsMethods {
  list(client: McpClient): object;
  poll(client: McpClient, params: Record<string, unknown>): Promise<object>;
  stream(
    client: McpClient,
    params: Record<string, unknown>,
    send: (method: string, params: Record<string, unknown>) => Promise<void>,
    signal: AbortSignal,
  ): Promise<void>;
  subscribe(client: McpClient, params: Record<string, unknown>): Promise<object>;
  unsubscribe(client: McpClient, params: Record<string, unknown>): Promise<object>;
}
