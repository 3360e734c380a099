// Startup refusals that need the real first-party plugins loaded by the host.
import { startTestGateway } from '@hookwise/testing';

const route = (deliver: string) => ({ platforms: { webhook: { enabled: true, extra: { routes: { ops: { secret: 'a-long-enough-secret', deliver } } } } }, store: { backend: 'memory' } });

describe('gateway startup with the first-party plugins', () => {
  it.each(['platform_01', 'platform_05', 'platform_10', 'platform_15'])('refuses a route delivering to %s while that platform is not enabled', async (platform) => {
    await expect(startTestGateway({ config: route(platform) })).rejects.toThrow(
      `route 'ops' delivers to '${platform}', which is not enabled: set platforms.${platform}.enabled: true`,
    );
  });

  it('names the missing credential of an enabled platform by its key path', async () => {
    const config = { ...route('platform_01'), platforms: { ...route('platform_01').platforms, platform_01: { enabled: true, home_channel: '-100' } } };
    await expect(startTestGateway({ config })).rejects.toThrow(/platforms\.platform_01.*token/);
  });

  it('loads every first-party plugin so that each deliver type, source, runner and store is known', async () => {
    const gw = await startTestGateway({ config: route('log') });
    try {
      const ids = gw.gateway.registry.ids('deliverer').sort();
      expect(ids).toEqual(['codehost_a_comment', 'log', ...Array.from({ length: 15 }, (_, i) => `platform_${String(i + 1).padStart(2, '0')}`)].sort());
      expect(gw.gateway.registry.ids('source').sort()).toEqual(['generic', 'github', 'gitlab']);
      expect(gw.gateway.registry.ids('agent').sort()).toEqual(['command', 'echo', 'openai']);
      // Stores are plugins too: the built-in memory store and the two first-party packages.
      expect(gw.gateway.registry.ids('store').sort()).toEqual(['memory', 'redis', 'sqlite']);
    } finally {
      await gw.stop();
    }
  });
});
