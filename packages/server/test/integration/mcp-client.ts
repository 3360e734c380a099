// An official MCP SDK client of a test gateway's MCP Events endpoint (POST /mcp on the admin listener), shared by
// the MCP Events tests.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';

/** A connected client with `token` as its bearer token; kept in `opened` for the test's afterAll to close. */
export async function connectMcpClient(gatewayUrl: string, token: string, opened: Client[]): Promise<Client> {
  const client = new Client({ name: 'events-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  opened.push(client);
  return client;
}

/** An MCP Events request (events/list, events/poll, ...) and its result. */
export function mcpCall<T>(client: Client, method: string, params: Record<string, unknown>): Promise<T> {
  return client.request({ method, params }, ResultSchema) as unknown as Promise<T>;
}
