// The agent runner contract from @hookwise/testing against a local stand-in for Anthropic, and the package manifest.
import { describeAgentRunnerContract, describePluginManifestContract, type PluginPackageJson } from '@hookwise/testing';
import { createAnthropicRunner } from '../../src';

const KEY = 'anthropic-contract-key-0123456789';

describeAgentRunnerContract('anthropic', ({ server, test }) => createAnthropicRunner({ url: server.url, api_key_env: 'KEY', timeout_seconds: 5 }, { ...test.ctx, env: { KEY } }), {
  secrets: [KEY],
  // 'hang' is left unanswered: only the AbortSignal can end that run.
  api: (_req, scenario) => (scenario === 'answer' ? { json: { text: 'The build is green.' } } : scenario === 'fail' ? { status: 500, json: { error: 'overloaded' } } : undefined),
});

describePluginManifestContract(require('../../package.json') as PluginPackageJson, () => require('../../src'));
