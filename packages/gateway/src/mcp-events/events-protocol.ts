// The names of the Events extension (SEP-3415) this server speaks, and what its MCP endpoint (events-mcp.ts) asks
// of the methods (mcp-events.ts), so that the two modules do not import each other.
import type { McpClient } from './mcp-clients';

export const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';
export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';

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
