// /etc inside a sandbox shows only what any user of the machine may read: a root-owned 0600 file and a 0700
// directory under the host's /etc (made here; the tests run as root) stay unreadable to the agent, while the
// world-readable files beside them stay readable.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { openSandboxRun, probeSandbox, resolveSandboxPolicy, type SandboxRun } from '../../src';
import { runShell } from '../helpers';

const bwrap = spawnSync('sh', ['-c', 'command -v bwrap']).stdout.toString().trim();
const asRoot = process.getuid?.() === 0;
const testAsRootWithBwrap = bwrap && asRoot ? test : test.skip;

const secretFile = `/etc/hw-sbx-private-${process.pid}.conf`;
const secretDir = `/etc/hw-sbx-private-dir-${process.pid}`;
const SECRET = `db_password=hw-secret-${process.pid}`;
let run: SandboxRun | undefined;

beforeAll(() => {
  if (!asRoot) return;
  writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
  chmodSync(secretFile, 0o600);
  mkdirSync(secretDir, { mode: 0o700 });
  chmodSync(secretDir, 0o700);
  // World-readable itself, but inside a directory only root may enter.
  writeFileSync(`${secretDir}/inner.conf`, `${SECRET}\n`, { mode: 0o644 });
});
afterAll(async () => {
  await run?.close();
  if (!asRoot) return;
  rmSync(secretFile, { force: true });
  rmSync(secretDir, { recursive: true, force: true });
});

testAsRootWithBwrap('a root-owned 0600 file and a 0700 directory under /etc cannot be read inside; /etc/os-release can', async () => {
  run = await openSandboxRun({ decision: resolveSandboxPolicy('required', await probeSandbox()), label: 'etc', network: [] });
  const result = await runShell(
    run,
    `cat ${secretFile}; echo "file:$?"; cat ${secretDir}/inner.conf; echo "inner:$?"; ls -A ${secretDir}; echo "dir:$?"; grep -c '^ID=' /etc/os-release`,
  );
  expect(result.stdout).not.toContain(SECRET);
  expect(result.stdout).not.toContain('inner.conf');
  expect(result.stdout).toMatch(/inner:[1-9]/);
  // The host's file is there and world-readable, and the agent reads it.
  expect(readFileSync('/etc/os-release', 'utf8')).toMatch(/^ID=/m);
  expect(result.stdout.trim().split('\n').pop()).toBe('1');
});
