// The manifest and contract tests of every first-party plugin, from one place over the folders in plugins/: the
// package manifest contract for each, and the deliverer or agent-runner contract for each plugin whose
// test/contract-scenarios.ts gives the contract's inputs (the stand-in API's answers, how the plugin is built).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  describeAgentRunnerContract,
  describeDelivererContract,
  describePluginManifestContract,
  type AgentRunnerContractCase,
  type DelivererContractCase,
  type PluginPackageJson,
} from '../../src';

const root = join(__dirname, '..', '..', '..', '..');
const pluginsDir = join(root, 'plugins');
const folders = readdirSync(pluginsDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(pluginsDir, entry.name, 'package.json')))
  .map((entry) => entry.name)
  .sort();

describe('first-party plugin folders', () => {
  it('are named <kind>-<name> for the package @hookwise/plugin-<kind>-<name>', () => {
    for (const folder of folders) {
      const pkg = JSON.parse(readFileSync(join(pluginsDir, folder, 'package.json'), 'utf8')) as PluginPackageJson;
      expect({ folder, name: pkg.name }).toEqual({ folder, name: `@hookwise/plugin-${folder}` });
      expect(folder).toMatch(/^(source|deliverer|agent)-[a-z0-9-]+$/);
    }
  });

  // The distribution's list of what it loads by default (@hookwise/cli's dependencies): every plugin folder is on it
  // and nothing else is.
  it('are exactly the plugins the distribution depends on (packages/cli/package.json)', () => {
    const { firstPartyPackages } = require(join(root, 'scripts', 'plugin-manifests.js')) as { firstPartyPackages(): string[] };
    const listed = firstPartyPackages()
      .filter((name) => name.startsWith('@hookwise/plugin-'))
      .map((name) => name.slice('@hookwise/plugin-'.length));
    expect(listed).toEqual(folders);
  });

  it('follow the one layout: src/index.ts beside the package.json, test data in test/contract-scenarios.ts', () => {
    for (const folder of folders) {
      const index = readFileSync(join(pluginsDir, folder, 'src', 'index.ts'), 'utf8');
      // The plugin object is made where it is exported, from package.json (its name, version and API).
      expect({ folder, definePlugin: /export default definePlugin\(\{ package: require\('\.\.\/package\.json'\)/.test(index) }).toEqual({
        folder,
        definePlugin: true,
      });
      expect({ folder, pluginTs: existsSync(join(pluginsDir, folder, 'src', 'plugin.ts')) }).toEqual({ folder, pluginTs: false });
      const needsScenarios = !folder.startsWith('source-');
      expect({ folder, scenarios: existsSync(join(pluginsDir, folder, 'test', 'contract-scenarios.ts')) }).toEqual({ folder, scenarios: needsScenarios });
    }
  });
});

for (const folder of folders) {
  const dir = join(pluginsDir, folder);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PluginPackageJson;
  // Resolved through jest's moduleNameMapper to the plugin's src.
  describePluginManifestContract(pkg, () => require(pkg.name) as unknown, dir);

  const scenarios = join(dir, 'test', 'contract-scenarios.ts');
  if (!existsSync(scenarios)) continue;
  const contract = (require(scenarios) as { default: DelivererContractCase | AgentRunnerContractCase }).default;
  if (contract.kind === 'deliverer') describeDelivererContract(contract.name, contract.factory, contract.options);
  else describeAgentRunnerContract(contract.name, contract.factory, contract.options);
}
