// Startup refusals that need the real first-party plugins loaded by the host.
import type { ContributionKind } from '@hookwise/core';
import { startTestGateway } from '@hookwise/testing';

interface Contribution {
  id: string;
  aliases: string[];
  package: string;
}
// The distribution's plugins and what their manifests contribute (the one list: @hookwise/cli's dependencies).
const { contributions } = require('../../../../scripts/plugin-manifests') as { contributions(kind: string): Contribution[] };
const ids = (kind: string): string[] => contributions(kind).map((c) => c.id);
/** The contribution itself, from the plugin's code (jest maps the package to its src). */
const contributionOf = (c: Contribution): { id: string; requiresEnabled?: boolean } =>
  (require(c.package) as { default: { contributes: Array<{ id: string; requiresEnabled?: boolean }> } }).default.contributes.find((x) => x.id === c.id)!;

const route = (deliver: string | string[]) => ({
  platforms: { webhook: { enabled: true, extra: { routes: { ops: { secret: 'a-long-enough-secret', deliver } } } } },
  store: { backend: 'memory' },
});

describe('gateway startup with the first-party plugins', () => {
  it('refuses a route delivering to any first-party platform, by its id or its SPEC alias, while that platform is not enabled, naming its real config key', async () => {
    // github_comment runs `gh` and needs no enabling; every platform does (its contribution's requiresEnabled).
    const needsEnabling = contributions('deliverer').filter((c) => contributionOf(c).requiresEnabled);
    expect(needsEnabling.length).toBeGreaterThanOrEqual(15);
    const named = needsEnabling.flatMap((c) => [c.id, ...c.aliases].map((deliver) => [deliver, c.id]));
    const message = await startTestGateway({ config: route(named.map(([deliver]) => deliver)) }).then(
      (gw) => gw.stop().then(() => 'started'),
      (err: Error) => err.message,
    );
    for (const [deliver, real] of named)
      expect(message).toContain(`route 'ops' delivers to '${deliver}', which is not enabled: set platforms.${real}.enabled: true`);
  });

  it("reads a platform's block under its SPEC alias too (platforms.platform_01 for telegram)", async () => {
    const config = { ...route('telegram'), platforms: { ...route('telegram').platforms, platform_01: { enabled: true, home_channel: '-100' } } };
    await expect(startTestGateway({ config })).rejects.toThrow(/platforms\.platform_01.*token/);
  });

  it('names the missing credential of an enabled platform by its key path', async () => {
    const config = { ...route('platform_01'), platforms: { ...route('platform_01').platforms, platform_01: { enabled: true, home_channel: '-100' } } };
    await expect(startTestGateway({ config })).rejects.toThrow(/platforms\.platform_01.*token/);
  });

  it('loads every first-party plugin so that each deliver type, source, runner and store its manifest lists is known', async () => {
    const gw = await startTestGateway({ config: route('log') });
    try {
      const { registry } = gw.gateway;
      // The built-ins beside what the distribution's plugins contribute (their package.json manifests).
      const builtIn: Record<string, string[]> = { deliverer: ['log'], agent: ['echo'], store: ['memory'], source: [] };
      for (const kind of ['deliverer', 'source', 'agent', 'store']) {
        expect({ kind, ids: registry.ids(kind as ContributionKind).sort() }).toEqual({ kind, ids: [...builtIn[kind], ...ids(kind)].sort() });
      }
      // The SPEC's names (platform_01 ...) are aliases of the same contributions, as each plugin's manifest says.
      const aliases = contributions('deliverer').flatMap((c) => c.aliases.map((alias) => [alias, c.id]));
      expect(aliases.length).toBeGreaterThanOrEqual(16);
      for (const [alias, id] of aliases) expect({ alias, id: registry.canonicalId('deliverer', alias) }).toEqual({ alias, id });
    } finally {
      await gw.stop();
    }
  });
});
