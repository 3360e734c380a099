// `hookwise mcp subscriptions`: the MCP Events subscriptions in the store: clients' webhook subscriptions to this
// gateway (events/subscribe), and the `source: mcp-events` routes' subscriptions to other MCP servers. Read from
// the store the gateway uses, so it works while the gateway runs; never a secret.
import { HookwiseError } from '@hookwise/core';
import type { ListedMcpSubscription } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { loadChosen, profileFlag } from '../../profile-choice';
import { storeHasData, withDeliveryStore } from '../../delivery-store';
import { openOfflineGateway } from '../../offline-gateway';
import { renderTable } from '../../text-table';

export default class McpSubscriptions extends HookwiseCommand {
  static override description =
    "List the MCP Events subscriptions in the store: clients' webhook subscriptions (kind webhook: client, event type, callback, expiry) and the source: mcp-events routes' subscriptions to other MCP servers (kind upstream: route, event type, server, expiry). Secrets are never shown.";
  static override examples = ['<%= config.bin %> mcp subscriptions', '<%= config.bin %> mcp subscriptions --profile acme --json'];
  static override enableJsonFlag = true;
  static override flags = { 'config-dir': configDirFlag, profile: profileFlag };

  async run(): Promise<ListedMcpSubscription[]> {
    const { flags } = await this.parse(McpSubscriptions);
    const choice = this.readsConfigDir(flags);
    let listed: ListedMcpSubscription[];
    try {
      const { config, configDir } = loadChosen(choice);
      if (config.store.backend === 'memory')
        throw new HookwiseError(
          'HW_E_STORE',
          'store.backend is memory: subscriptions live only inside the running gateway; use sqlite (the default) or redis to list them',
        );
      if (storeHasData(config, configDir)) {
        // The gateway's own reading of them, over the store the running gateway uses.
        const offline = await openOfflineGateway(choice);
        try {
          listed = await withDeliveryStore(choice, async (store) => (store.memos ? offline.gateway.features.mcpEvents.subscriptionListing(store.memos) : []));
        } finally {
          await offline.close();
        }
      } else listed = [];
    } catch (err) {
      this.fail(err);
    }
    if (!listed.length) {
      this.logNothingFound(
        'No MCP subscriptions in the store',
        'Clients subscribe with events/subscribe; routes with source: mcp-events once the gateway runs.',
      );
      return [];
    }
    const rows = listed.map((s) => [s.kind, s.id, s.holder, s.name, s.url, `${s.expiresAt.slice(0, 19).replace('T', ' ')}${s.expired ? ' (expired)' : ''}`]);
    this.log(renderTable(['KIND', 'ID', 'CLIENT/ROUTE', 'EVENT TYPE', 'URL', 'EXPIRES (UTC)'], rows, { whole: [1] }));
    return listed;
  }
}
