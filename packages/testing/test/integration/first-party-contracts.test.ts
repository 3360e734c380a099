// The manifest and contract tests of every first-party plugin, from one place over the folders in plugins/: the
// package manifest contract for each, and the deliverer or agent-runner contract for each plugin whose
// test/contract-scenarios.ts gives the contract's inputs (the stand-in API's answers, how the plugin is built), and
// the payload schema contract for each source, over the documented payloads of its test/payload-samples.ts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  describeAgentRunnerContract,
  describeDelivererContract,
  describePluginManifestContract,
  describeSourcePayloadSchema,
  type AgentRunnerContractCase,
  type DelivererContractCase,
  type PayloadSample,
  type PluginPackageJson,
} from '../../src';
import type { HookwisePlugin, SourceContribution } from '@hookwise/core';

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

  const samples = join(dir, 'test', 'payload-samples.ts');
  if (folder.startsWith('source-') && folder !== 'source-generic') {
    // Every first-party sender documents its payloads (generic's are whatever its caller posts): a schema and samples.
    const plugin = (require(pkg.name) as { default: HookwisePlugin }).default;
    const source = plugin.contributes.find((c): c is SourceContribution => c.kind === 'source')!;
    it(`${folder} declares its payload schema (src/payload-schema.ts) and samples (test/payload-samples.ts)`, () => {
      expect({ folder, schema: source.payloadSchema !== undefined, samples: existsSync(samples) }).toEqual({ folder, schema: true, samples: true });
    });
    if (existsSync(samples)) describeSourcePayloadSchema(source, (require(samples) as { default: PayloadSample[] }).default);
  }

  const scenarios = join(dir, 'test', 'contract-scenarios.ts');
  if (!existsSync(scenarios)) continue;
  const contract = (require(scenarios) as { default: DelivererContractCase | AgentRunnerContractCase }).default;
  if (contract.kind === 'deliverer') describeDelivererContract(contract.name, contract.factory, contract.options);
  else describeAgentRunnerContract(contract.name, contract.factory, contract.options);
}
