// Startup refusals that need the real first-party plugins loaded by the host.
import { startTestGateway } from '@hookwise/testing';

const route = (deliver: string) => ({
  platforms: { webhook: { enabled: true, extra: { routes: { ops: { secret: 'a-long-enough-secret', deliver } } } } },
  store: { backend: 'memory' },
});

describe('gateway startup with the first-party plugins', () => {
  it.each([
    ['telegram', 'telegram'],
    ['platform_01', 'telegram'],
    ['platform_05', 'sms'],
    ['email', 'email'],
    ['platform_15', 'bluebubbles'],
  ])('refuses a route delivering to %s while that platform is not enabled, naming its real config key', async (deliver, real) => {
    await expect(startTestGateway({ config: route(deliver) })).rejects.toThrow(
      `route 'ops' delivers to '${deliver}', which is not enabled: set platforms.${real}.enabled: true`,
    );
  });

  it("reads a platform's block under its SPEC alias too (platforms.platform_01 for telegram)", async () => {
    const config = { ...route('telegram'), platforms: { ...route('telegram').platforms, platform_01: { enabled: true, home_channel: '-100' } } };
    await expect(startTestGateway({ config })).rejects.toThrow(/platforms\.platform_01.*token/);
  });

  it('names the missing credential of an enabled platform by its key path', async () => {
    const config = { ...route('platform_01'), platforms: { ...route('platform_01').platforms, platform_01: { enabled: true, home_channel: '-100' } } };
    await expect(startTestGateway({ config })).rejects.toThrow(/platforms\.platform_01.*token/);
  });

  it('loads every first-party plugin so that each deliver type, source, runner and store is known', async () => {
    const gw = await startTestGateway({ config: route('log') });
    try {
      const ids = gw.gateway.registry.ids('deliverer').sort();
      const platforms = [
        'telegram',
        'discord',
        'slack',
        'signal',
        'sms',
        'whatsapp',
        'matrix',
        'mattermost',
        'homeassistant',
        'email',
        'dingtalk',
        'feishu',
        'wecom',
        'wechat',
        'bluebubbles',
      ];
      expect(ids).toEqual(['github_comment', 'gitlab_comment', 'log', ...platforms].sort());
      // The SPEC's names are aliases of the same contributions, in order.
      platforms.forEach((id, i) => expect(gw.gateway.registry.canonicalId('deliverer', `platform_${String(i + 1).padStart(2, '0')}`)).toBe(id));
      expect(gw.gateway.registry.canonicalId('deliverer', 'codehost_a_comment')).toBe('github_comment');
      expect(gw.gateway.registry.ids('source').sort()).toEqual([
        'bitbucket',
        'bluebubbles',
        'dingtalk',
        'discord',
        'feishu',
        'generic',
        'gitea',
        'github',
        'gitlab',
        'linear',
        'matrix',
        'mattermost',
        'paddle',
        'pagerduty',
        'sendgrid',
        'sentry',
        'shopify',
        'slack',
        'standard-webhooks',
        'stripe',
        'telegram',
        'twilio',
        'twitch',
        'wechat',
        'wecom',
        'whatsapp',
        'zoom',
      ]);
      expect(gw.gateway.registry.ids('agent').sort()).toEqual(['anthropic', 'command', 'echo', 'openai']);
      // Stores are plugins too: the built-in memory store and the two first-party packages.
      expect(gw.gateway.registry.ids('store').sort()).toEqual(['memory', 'redis', 'sqlite']);
    } finally {
      await gw.stop();
    }
  });
});
