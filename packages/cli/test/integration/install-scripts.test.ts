// npm 11 skips the install scripts of dependencies a project does not allow and ends `npm ci` with a list that
// reads as if better-sqlite3 did not build (issue 35 item 10); with its script skipped it really is not built.
// The root package.json's allowScripts covers every dependency with an install script, which npm's own
// read-only check confirms.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

jest.setTimeout(60_000);

const ROOT = join(__dirname, '..', '..', '..', '..');

function npmKnowsInstallScripts(): boolean {
  try {
    execFileSync('npm', ['help', 'install-scripts'], { cwd: ROOT, stdio: 'pipe', env: { ...process.env, MANPAGER: 'cat', PAGER: 'cat' } });
    return true;
  } catch {
    return false;
  }
}

describe('install scripts of dependencies', () => {
  it('the root package.json allows the native builds (better-sqlite3, msgpackr-extract)', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
    expect(manifest.allowScripts).toMatchObject({ 'better-sqlite3': true, 'msgpackr-extract': true });
  });

  it('npm finds no dependency whose install script is neither allowed nor denied', () => {
    if (!npmKnowsInstallScripts()) return; // an npm before install-script approvals runs every script anyway
    const listed = execFileSync('npm', ['install-scripts', 'ls'], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
    expect(listed).toMatch(/No packages with unreviewed install scripts/);
  });

  it('the README says how a tarball install allows them', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm install -g --allow-scripts=better-sqlite3,msgpackr-extract /tmp/hookwise-packs/*.tgz');
  });
});
