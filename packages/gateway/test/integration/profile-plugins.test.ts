// The plugins of the config dir's config.yaml in a profile's gateway: `plugins` is a global key, so a path in it is
// found from the config dir where it is written, not from the profile's folder.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, openGateway } from '../../src';

const PLUGIN = `module.exports = {
  [Symbol.for('hookwise.plugin')]: true,
  meta: { name: 'config-dir-plugin', version: '1.0.0', api: 2 },
  contributes: [{ kind: 'deliverer', id: 'config-dir-deliverer', create: () => ({ deliver: async () => ({ target: 'nowhere' }) }) }],
};
`;

describe("a profile's gateway", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hw-profile-plugins-'));
    writeFileSync(join(dir, 'config-dir-plugin.js'), PLUGIN);
    writeFileSync(join(dir, 'config.yaml'), JSON.stringify({ agent: { runner: 'echo' }, store: { backend: 'memory' }, plugins: ['./config-dir-plugin.js'] }));
    mkdirSync(join(dir, 'profiles', 'acme'), { recursive: true });
    writeFileSync(
      join(dir, 'profiles', 'acme', 'config.yaml'),
      JSON.stringify({
        platforms: { webhook: { enabled: true, extra: { routes: { ci: { secret: 'acme-secret-0123456789abcdef', deliver: 'config-dir-deliverer' } } } } },
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("loads a plugin the config dir's config.yaml lists by a relative path, and its routes may use it", async () => {
    const opened = await openGateway(loadConfig({ configDir: dir, env: {}, profile: 'acme' }), { logLevel: 'error' });
    try {
      expect(opened.plugins.map((loaded) => loaded.plugin.meta.name)).toContain('config-dir-plugin');
      // Starting checks every route: acme's `ci` delivers with the plugin's deliverer.
      await opened.start();
    } finally {
      await opened.close(0);
    }
  });
});
