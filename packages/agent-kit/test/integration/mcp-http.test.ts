// McpServers over streamable HTTP: a real MCP server built with the official SDK's server side, on a loopback
// port, serves a tool; the kit's client lists it, sends the configured headers, calls it and closes.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServers } from '../../src/mcp-client';
import { createTestPluginContext } from '@hookwise/testing';
import { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const TOKEN = 'mcp-test-token-0123456789';
let http: Server;
let url: string;
const seenHeaders: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  http = createServer(async (req, res) => {
    seenHeaders.push(req.headers);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401).end();
      return;
    }
    // Stateless: one server and transport per request, as the SDK documents for servers without sessions.
    const server = new McpServer({ name: 'tracker', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        {
          name: 'issue_title',
          description: 'The title of an issue',
          inputSchema: { type: 'object', properties: { number: { type: 'number' } }, required: ['number'] },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const number = request.params.arguments?.number;
      if (typeof number !== 'number') return { content: [{ type: 'text', text: 'number must be a number' }], isError: true };
      return { content: [{ type: 'text', text: `#${number}: Retries ignore Retry-After` }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(() => new Promise<void>((r) => http.close(() => r())));

describe('McpServers over streamable HTTP', () => {
  it('lists the tools with the configured headers, calls one, and keeps the header values out of the logs', async () => {
    const test = createTestPluginContext({ gatewayRedaction: true });
    const servers = new McpServers(
      [{ name: 'tracker', url, headers: { Authorization: `Bearer ${TOKEN}` }, timeout_seconds: 10, max_output_bytes: 1000 }],
      test.ctx,
    );
    try {
      const signal = new AbortController().signal;
      const [tool] = await servers.tools(signal);
      expect(tool.definition.name).toBe('tracker__issue_title');
      expect(tool.definition.description).toBe('The title of an issue (tool "issue_title" of the MCP server "tracker")');
      expect(tool.definition.inputSchema).toMatchObject({ type: 'object', properties: { number: { type: 'number' } } });
      expect(await tool.run({ number: 42 }, signal)).toEqual({ content: '#42: Retries ignore Retry-After', isError: false });
      // Invalid arguments are the server's to refuse and the model's to read.
      expect(await tool.run({ number: 'forty-two' }, signal)).toMatchObject({ isError: true });
    } finally {
      await servers.close();
    }
    expect(seenHeaders.length).toBeGreaterThan(0);
    expect(seenHeaders.every((h) => h.authorization === `Bearer ${TOKEN}`)).toBe(true);
    test.ctx.logger.info(`header was Bearer ${TOKEN}`);
    expect(test.logs.join('\n')).not.toContain(TOKEN);
  });

  it('fails with a retryable error naming the server when the endpoint refuses the connection', async () => {
    const test = createTestPluginContext({ gatewayRedaction: true });
    const servers = new McpServers(
      [{ name: 'tracker', url, headers: { Authorization: 'Bearer wrong-token-000000' }, timeout_seconds: 5, max_output_bytes: 1000 }],
      test.ctx,
    );
    const error = await servers.tools(new AbortController().signal).catch((e) => e);
    await servers.close();
    expect(error.message).toContain(`MCP server 'tracker' (${url}) could not be reached`);
    expect(error.retryable).toBe(true);
  });
});
