// The systemd unit of docs/operations.md, as a reader copies it, checked by `systemd-analyze verify` in a root
// directory of its own (the machine's unit files for the targets it names, the `hookwise` program at the path
// ExecStart gives): syntax, directives, the targets, an absolute executable. Skipped, and saying why, where
// systemd-analyze is not installed.
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const run = promisify(execFile);
const ROOT = join(TEST_DIR, '..', '..', '..');
const UNIT_DIRS = ['/usr/lib/systemd/system', '/lib/systemd/system'];

/** The first ```ini block of docs/operations.md: the unit file. */
function documentedUnit(): string {
  const doc = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
  const match = /```ini\n([\s\S]*?)```/.exec(doc);
  if (!match) throw new Error('docs/operations.md has no ```ini block with the systemd unit');
  return match[1];
}

const haveSystemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0 && UNIT_DIRS.some((dir) => existsSync(join(dir, 'multi-user.target')));
// Reported as skipped where systemd-analyze (Debian package systemd) is not installed.
const verifyIt = haveSystemdAnalyze ? it : it.skip;

/** A root with the system's unit files, the unit under test and the program ExecStart names. */
function unitRoot(unit: string, name: string): string {
  const root = mkdtempSync(join(tmpdir(), 'hookwise-systemd-'));
  const systemUnits = UNIT_DIRS.find((dir) => existsSync(join(dir, 'multi-user.target')))!;
  mkdirSync(join(root, 'usr', 'lib', 'systemd'), { recursive: true });
  cpSync(systemUnits, join(root, 'usr', 'lib', 'systemd', 'system'), { recursive: true, verbatimSymlinks: true });
  mkdirSync(join(root, 'etc', 'systemd', 'system'), { recursive: true });
  writeFileSync(join(root, 'etc', 'systemd', 'system', name), unit);
  const exec = /^ExecStart=(\S+)/m.exec(unit)?.[1];
  if (exec) {
    // The installed package's program, as `npm install -g hookwise` links it.
    mkdirSync(join(root, dirname(exec)), { recursive: true });
    copyFileSync(join(ROOT, 'packages', 'hookwise', 'bin', 'hookwise.js'), join(root, exec));
    chmodSync(join(root, exec), 0o755);
  }
  return root;
}

async function verify(unit: string, name = 'hookwise.service'): Promise<{ code: number; output: string }> {
  const root = unitRoot(unit, name);
  try {
    await run('systemd-analyze', ['verify', '--man=no', `--root=${root}`, name]);
    return { code: 0, output: '' };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('the systemd unit in docs/operations.md', () => {
  const unit = documentedUnit();

  it('runs the gateway in the foreground as its own user, stops it with SIGTERM to the main process only, and waits longer than the shutdown deadline', () => {
    expect(unit).toMatch(/^ExecStart=\/\S+\/hookwise gateway run --log-format json$/m);
    expect(unit).toMatch(/^User=hookwise$/m);
    expect(unit).toMatch(/^Environment=HOOKWISE_HOME=\/var\/lib\/hookwise\/home$/m);
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
    expect(unit).toMatch(/^KillMode=mixed$/m);
    const stopSeconds = Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]);
    // shutdown_timeout_seconds defaults to 10 s.
    expect(stopSeconds).toBeGreaterThan(10);
    expect(unit).toMatch(/^ReadWritePaths=\/var\/lib\/hookwise$/m);
  });

  verifyIt('passes systemd-analyze verify; a broken copy does not (so the check really checks)', async () => {
    expect(await verify(unit)).toEqual({ code: 0, output: '' });
    const broken = await verify(unit.replace('Restart=on-failure', 'Restart=sometimes').replace('ExecStart=/', 'ExecStart='));
    expect(broken.code).not.toBe(0);
    expect(broken.output).toMatch(/hookwise\.service:\d+: Neither a valid executable name nor an absolute path|bad unit file setting/);
  });
});
