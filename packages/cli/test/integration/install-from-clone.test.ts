// README "Install", as written for a clone: `npm install -g ./packages/hookwise` gives a working `hookwise` (into a
// prefix of its own here), and nothing claims an install path or a repository address that does not exist.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

jest.setTimeout(180_000);

const ROOT = join(__dirname, '..', '..', '..', '..');
let prefix: string;
beforeAll(() => {
  prefix = mkdtempSync(join(tmpdir(), 'hookwise-prefix-'));
});
afterAll(() => rmSync(prefix, { recursive: true, force: true }));

describe('the install path of README "Install"', () => {
  it('npm install -g ./packages/hookwise from the built clone gives a hookwise that runs', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Your own gateway'));
    expect(install).toContain('npm ci && npm run build && npm install -g ./packages/hookwise');
    expect(install).toMatch(/not on the npm registry yet/);
    expect(install).toContain('docker build -t hookwise .');
    // --offline: the package links to the clone, whose node_modules has every dependency.
    execFileSync('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', './packages/hookwise'], { cwd: ROOT, stdio: 'pipe' });
    const bin = join(prefix, 'bin', 'hookwise');
    const env = { ...process.env, HOOKWISE_HOME: join(prefix, 'home') };
    expect(execFileSync(bin, ['--version'], { env, encoding: 'utf8' })).toMatch(/^@hookwise\/cli\/\d+\.\d+\.\d+/);
    expect(execFileSync(bin, ['docs', 'errors', 'hw_e_config'], { env, encoding: 'utf8' })).toMatch(/^## HW_E_CONFIG\n/);
  });

  it("runs the README's clone block as written (npm ci and the build stand in: this suite runs built)", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Your own gateway'));
    const block = /```sh illustrative\n(git clone [\s\S]*?)```/.exec(install)?.[1] ?? '';
    expect(block).toContain('npm install -g ./packages/hookwise');
    // The clone is this checkout: its first line (git clone ... && cd ...) is what the test's cwd already is.
    const script = block
      .split('\n')
      .filter((line) => !line.startsWith('git clone'))
      .join('\n');
    const own = mkdtempSync(join(tmpdir(), 'hookwise-install-block-'));
    try {
      const bin = join(own, 'bin');
      mkdirSync(bin);
      const npm = execFileSync('which', ['npm'], { encoding: 'utf8' }).trim();
      // npm ci and npm run build would reinstall and rebuild the shared checkout: here they do nothing; an install
      // goes to this test's prefix, from the clone's node_modules (--offline).
      writeFileSync(
        join(bin, 'npm'),
        `#!/bin/sh\ncase "$1" in ci) exit 0;; run) [ "$2" = build ] && exit 0;; esac\nexec ${npm} "$@" --prefix ${join(own, 'prefix')} --offline --no-audit --no-fund\n`,
      );
      chmodSync(join(bin, 'npm'), 0o755);
      const home = join(own, 'home');
      // Without -e: doctor exits 1 on a config dir with nothing set up yet, and the block goes on to docs errors.
      const out = execFileSync('bash', ['-uo', 'pipefail', '-c', script], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${bin}:${join(own, 'prefix', 'bin')}:${process.env.PATH}`, HOOKWISE_HOME: home, HOME: own },
        stdio: 'pipe',
      });
      expect(existsSync(join(own, 'prefix', 'bin', 'hookwise'))).toBe(true);
      expect(out).toContain(`Config dir: ${home}`);
      expect(out).toMatch(/^## HW_E_CONFIG$/m);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('no user doc tells to `npm install -g hookwise` as the way in, and no package names a made-up repository', () => {
    const docs = ['README.md', 'docs/getting-started.md', 'docs/operations.md'].map((file) => readFileSync(join(ROOT, file), 'utf8'));
    for (const text of docs) expect(text).not.toMatch(/^\s*(sudo )?npm install -g hookwise\b/m);
    const manifests = execFileSync('git', ['ls-files', '*package.json'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n');
    const invented = manifests.filter((file) => readFileSync(join(ROOT, file), 'utf8').includes('example.invalid'));
    expect(invented).toEqual([]);
  });
});
