// The job channel's MCP endpoint: at the channel's own URL (HOOKWISE_JOB_CHANNEL), streamable HTTP in
// stateless mode, authenticated by the run's token like the rest of the channel (job-channel.ts checks it before
// this module is reached). tools/list answers the route's allowed actions with their JSON Schemas; tools/call
// goes to the run's tools (channel-tools.ts: the route's actions, actions/run-actions.ts), and a refused or failed call is a tool result with isError and the
// reason, which the agent reads. Built on the official MCP SDK's server classes, loaded on the first request: the
// SDK is an optional peer dependency of the gateway (the agent runners' @hookwise/agent-kit brings it), so a
// gateway whose routes list no actions never loads it.
import type http from 'node:http';
import type { ChannelTools } from './channel-tools';
import { loadMcpServerSdk } from '../plugins/mcp-sdk';

/** Answers one MCP request of a run's agent on the channel (a new server and transport per request: stateless). */
export async function serveChannelMcp(req: http.IncomingMessage, res: http.ServerResponse, body: unknown, actions: ChannelTools): Promise<void> {
  const { server: s, http: h, types: t } = loadMcpServerSdk('route actions');
  const server = new s.Server({ name: 'hookwise-actions', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(t.ListToolsRequestSchema, () => ({ tools: actions.tools() }));
  server.setRequestHandler(t.CallToolRequestSchema, async (request) => {
    const answer = await actions.call(request.params.name, request.params.arguments ?? {});
    return { content: [{ type: 'text' as const, text: answer.text }], isError: !answer.ok };
  });
  const transport = new h.StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
