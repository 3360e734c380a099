// Which configured MCP values the redactor is given: the redactor scrubs whatever it holds at any length (one
// redactor, no minimum), so the MCP client hands it credentials only: every header value, and the env values
// whose name marks a credential; settings such as PORT=8080 or DEBUG=1 stay readable in the logs.
import { createTestPluginContext } from '@hookwise/testing';
import { McpServers } from '../../src/mcp-client';

describe('MCP server credentials', () => {
  it('registers header values and credential-named env values, whatever their length, and nothing else', () => {
    const test = createTestPluginContext({ gatewayRedaction: true });
    new McpServers(
      [
        {
          name: 'files',
          command: 'node',
          env: { GITHUB_TOKEN: 'ghp', BRAVE_API_KEY: 'brave-key-123456', PORT: '8080', DEBUG: '1' },
          timeout_seconds: 5,
          max_output_bytes: 100,
        },
        {
          name: 'web',
          url: 'https://mcp.example/mcp',
          headers: { Authorization: 'Bearer short', 'X-Api-Key': 'k1' },
          timeout_seconds: 5,
          max_output_bytes: 100,
        },
      ],
      test.ctx,
    );
    expect(test.redacted.sort()).toEqual(['Bearer short', 'brave-key-123456', 'ghp', 'k1']);
    test.ctx.logger.warn('started on port 8080 with DEBUG=1 and token ghp, key k1');
    const line = test.logs.join('\n');
    expect(line).toContain('port 8080 with DEBUG=1');
    expect(line).not.toMatch(/token ghp|key k1/);
  });
});
