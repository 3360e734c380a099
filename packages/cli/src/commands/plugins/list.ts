// `hookwise plugins list`: the plugins a gateway with this config would load, from their package manifests only.

import { loadConfig } from '@hookwise/gateway';
import { FIRST_PARTY_DIR, FIRST_PARTY_PLUGINS } from '../../first-party';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag, configDirFrom } from '../../config-dir';
import { listPlugins, type ListedPlugin } from '../../plugin-manifests';
import { renderTable, wideFlag } from '../../text-table';

export default class PluginsList extends HookwiseCommand {
  static override description =
    'List the plugins the gateway loads (first-party, the plugins: list of config.yaml, and a store package named by store.backend) and what each contributes, read from the "hookwise" field of its package.json without running plugin code.';
  static override examples = ['<%= config.bin %> plugins list', '<%= config.bin %> plugins list --wide', '<%= config.bin %> plugins list --json'];
  static override enableJsonFlag = true;
  static override flags = { 'config-dir': configDirFlag, wide: wideFlag };

  async run(): Promise<ListedPlugin[]> {
    const { flags } = await this.parse(PluginsList);
    let listed: ListedPlugin[];
    try {
      const { config, configDir } = loadConfig({ configDir: configDirFrom(flags['config-dir']) });
      listed = listPlugins({
        firstParty: FIRST_PARTY_PLUGINS,
        configured: config.plugins,
        storeBackend: config.store.backend,
        configDir,
        firstPartyDir: FIRST_PARTY_DIR,
      });
    } catch (err) {
      this.fail(err);
    }
    this.log(
      renderTable(
        ['PLUGIN', 'VERSION', 'SOURCE', 'CONTRIBUTES'],
        listed.map((p) => [
          p.name ?? p.spec,
          p.version ?? '-',
          p.source,
          p.problem ? `problem: ${p.problem}` : p.contributes.map((c) => `${c.kind}:${c.id}`).join(', '),
        ]),
        { whole: [0], wide: flags.wide },
      ),
    );
    const problems = listed.filter((p) => p.problem);
    for (const p of problems) this.warn(`${p.spec}: ${p.problem}`);
    return listed;
  }
}
