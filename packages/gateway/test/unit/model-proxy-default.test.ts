// Which runs the model proxy serves (agent.model_proxy.enabled true, unset or false), where its calls go when no
// base_url is configured, and what startup says about routes whose agent CLI would get a model key itself.
import { ModelProxy } from '../../src/model-proxy/model-proxy-hook';
import type { ModelProxyConfig } from '../../src/config/model-proxy-schema';
import { createLogger } from '../../src/observe/logger';
import { MemoryWindowCounters } from '../../src/stores/memory-counters';

function proxy(config: ModelProxyConfig | undefined, env: NodeJS.ProcessEnv): ModelProxy {
  return new ModelProxy({ config, env, logger: createLogger({ silent: true }), budgets: { counters: new MemoryWindowCounters(), global: undefined } });
}

const routes = [
  { name: 'cli', runner: 'command' },
  { name: 'api', runner: 'anthropic' },
];

describe('agent.model_proxy.enabled', () => {
  it('unset: serves the command runner when the gateway holds a provider key, never the in-gateway runners', () => {
    const auto = proxy(undefined, { ANTHROPIC_API_KEY: 'sk-ant-x' });
    expect(auto.mode).toBe('auto');
    expect(auto.serves('command')).toBe(true);
    expect(auto.serves('anthropic')).toBe(false);
    expect(auto.serves('openai')).toBe(false);
    expect(auto.heldKeys).toEqual(['ANTHROPIC_API_KEY']);
    expect(auto.keyWarnings(routes)).toEqual([]);
    // The configured variable counts as the provider's key.
    expect(proxy({ providers: { openai: { api_key_env: 'MY_OPENAI' } } }, { MY_OPENAI: 'sk-y' }).serves('command')).toBe(true);
  });

  it('unset without a provider key: off, and a key the proxy cannot use (CODEX_API_KEY, an OAuth token) is warned about', () => {
    expect(proxy(undefined, {}).serves('command')).toBe(false);
    expect(proxy(undefined, {}).keyWarnings(routes)).toEqual([]);
    const codexOnly = proxy(undefined, { CODEX_API_KEY: 'sk-codex', CLAUDE_CODE_OAUTH_TOKEN: 'oat' });
    expect(codexOnly.serves('command')).toBe(false);
    const [warning, ...more] = codexOnly.keyWarnings(routes);
    expect(more).toEqual([]);
    expect(warning).toMatch(
      /^route 'cli': the model proxy has no provider key to call with .*api_key_env.*gets CLAUDE_CODE_OAUTH_TOKEN, CODEX_API_KEY .*enters the run's sandbox/,
    );
  });

  it('true serves every runner; false none, with a warning per command route', () => {
    const on = proxy({ enabled: true }, {});
    expect([on.mode, on.serves('command'), on.serves('openai')]).toEqual(['on', true, true]);
    const off = proxy({ enabled: false }, { OPENAI_API_KEY: 'sk-openai' });
    expect([off.mode, off.serves('command')]).toEqual(['off', false]);
    expect(off.keyWarnings(routes)).toEqual([
      expect.stringMatching(/^route 'cli': agent\.model_proxy\.enabled is false, so its agent CLI gets OPENAI_API_KEY/),
    ]);
  });
});
