// `hookwise mcp clients`: the MCP clients of mcp.clients, whether each one's token variable is set, and the event
// types its patterns grant among config.yaml's routes. Tokens are never shown.
import type { ListedMcpClient } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { openOfflineGateway } from '../../offline-gateway';
import { renderTable } from '../../text-table';

export default class McpClients extends HookwiseCommand {
  static override description =
    "List the MCP Events clients of mcp.clients (docs/mcp-events.md): the variable holding each one's token and whether it is set (never the token), its patterns, and the event types they grant among config.yaml's routes.";
  static override examples = ['<%= config.bin %> mcp clients', '<%= config.bin %> mcp clients --json'];
  static override enableJsonFlag = true;
  static override flags = { 'config-dir': configDirFlag };

  async run(): Promise<ListedMcpClient[]> {
    const { flags } = await this.parse(McpClients);
    // The MCP endpoint serves the config dir's own routes (the default profile), so this takes no --profile.
    const choice = this.readsConfigDir({ 'config-dir': flags['config-dir'] });
    let clients: ListedMcpClient[];
    try {
      const offline = await openOfflineGateway(choice);
      try {
        clients = offline.gateway.features.mcpEvents.clientListing();
      } finally {
        await offline.close();
      }
    } catch (err) {
      this.fail(err);
    }
    if (!clients.length) {
      this.logNothingFound('No MCP clients in mcp.clients', 'See docs/mcp-events.md to give one a token and event types.');
      return [];
    }
    const rows = clients.map((c) => [c.name, `${c.tokenEnv}${c.tokenSet ? '' : ' (not set)'}`, c.patterns.join(', '), c.types.join(', ') || '(none)']);
    this.log(renderTable(['CLIENT', 'TOKEN VARIABLE', 'PATTERNS', 'EVENT TYPES'], rows, { whole: [0, 1] }));
    return clients;
  }
}
