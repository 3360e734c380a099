// The MCP endpoint of the Events server: Streamable HTTP in stateless mode (a new server and transport per
// request), built on the official MCP SDK's server classes, loaded on the first request (the SDK is an optional
// peer dependency of the gateway). `initialize` declares the extension in capabilities.extensions; the events/*
// methods go to McpEvents for the client the bearer token named (the host checked it before calling this).
import type http from 'node:http';
import type { McpClient } from './mcp-clients';
import { EVENTS_EXTENSION, SUBSCRIPTION_ID_META, type EventsMethods } from './events-protocol';
import { loadMcpServerSdk } from '../plugins/mcp-sdk';

function paramsOf(request: { params?: unknown }): Record<string, unknown> {
  const params = request.params;
  return params !== null && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
}

/** Answers one MCP request of an authenticated client. */
export async function serveMcpEvents(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: unknown,
  events: EventsMethods,
  client: McpClient,
): Promise<void> {
  const { server: s, http: h, types: t } = loadMcpServerSdk('the clients of mcp.clients');
  const server = new s.Server(
    { name: 'hookwise', version: '1.0.0' },
    {
      capabilities: { extensions: { [EVENTS_EXTENSION]: { listChanged: true } } },
      instructions: `Hookwise gateway: its routes as MCP event types (${EVENTS_EXTENSION}): events/list, events/poll, events/stream, events/subscribe (webhook), events/unsubscribe.`,
    },
  );
  const closed = new AbortController();
  type Answer = { [key: string]: unknown };
  server.fallbackRequestHandler = async (request, extra): Promise<Answer> => {
    const params = paramsOf(request);
    switch (request.method) {
      case 'events/list':
        return events.list(client) as unknown as Answer;
      case 'events/poll':
        return (await events.poll(client, params)) as unknown as Answer;
      case 'events/stream': {
        const meta = { [SUBSCRIPTION_ID_META]: extra.requestId };
        const signal = AbortSignal.any([extra.signal, closed.signal]);
        await events.stream(client, params, (method, notice) => extra.sendNotification({ method, params: { ...notice, _meta: meta } } as never), signal);
        return { resultType: 'complete', _meta: meta };
      }
      case 'events/subscribe':
        return (await events.subscribe(client, params)) as unknown as Answer;
      case 'events/unsubscribe':
        return (await events.unsubscribe(client, params)) as unknown as Answer;
      default:
        throw new t.McpError(t.ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    }
  };
  const transport = new h.StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    closed.abort();
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
