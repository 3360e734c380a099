// The probe on machines that cannot sandbox (made so here: a missing bwrap, one that fails its trial run) and
// the decision each mode makes from it.
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isHookwiseConfigError } from '@hookwise/core';
import { probeSandbox, resolveSandboxPolicy, type SandboxProbe } from '../../src';
import { tempDir } from '../helpers';

const dir = tempDir('probe');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('probeSandbox', () => {
  test('a bwrap path that does not exist: unavailable, naming the path and what to install', async () => {
    const probe = await probeSandbox({ bwrapPath: join(dir, 'no-such-bwrap') });
    expect(probe.available).toBe(false);
    expect(probe.reason).toBe(`bwrap at ${join(dir, 'no-such-bwrap')} does not exist or is not executable`);
    expect(probe.fix).toContain('apt-get install bubblewrap');
  });

  test('no bwrap on PATH: unavailable, saying so', async () => {
    const probe = await probeSandbox({ path: dir });
    expect(probe).toMatchObject({ available: false, reason: 'bubblewrap (bwrap) is not on PATH' });
    expect(probe.fix).toContain('apt-get install bubblewrap');
  });

  test('a bwrap whose trial run fails (namespaces forbidden): unavailable with its own message', async () => {
    const fake = join(dir, 'bwrap');
    writeFileSync(fake, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n');
    chmodSync(fake, 0o755);
    // refresh: the test above probed the same PATH before the fake existed (the answer is cached).
    const probe = await probeSandbox({ path: dir, refresh: true });
    expect(probe.available).toBe(false);
    expect(probe.bwrapPath).toBe(fake);
    expect(probe.reason).toBe(`bwrap at ${fake} cannot create a sandbox here: bwrap: No permissions to create new namespace`);
    expect(probe.fix).toContain('user namespaces');
  });

  test('is cached per process: the same answer without a new trial run, unless refreshed', async () => {
    const fake = join(dir, 'counting-bwrap');
    const count = join(dir, 'runs');
    writeFileSync(fake, `#!/bin/sh\necho run >> ${count}\nexit 1\n`);
    chmodSync(fake, 0o755);
    const first = probeSandbox({ bwrapPath: fake });
    expect(probeSandbox({ bwrapPath: fake })).toBe(first);
    await first;
    await probeSandbox({ bwrapPath: fake, refresh: true });
    expect(require('node:fs').readFileSync(count, 'utf8')).toBe('run\nrun\n');
  });
});

describe('resolveSandboxPolicy', () => {
  const missing: SandboxProbe = { available: false, reason: 'bubblewrap (bwrap) is not on PATH', fix: 'apt-get install bubblewrap' };
  const working: SandboxProbe = { available: true, bwrapPath: '/usr/bin/bwrap', reason: 'bubblewrap at /usr/bin/bwrap works' };

  test('auto (the default) sandboxes where it can', () => {
    expect(resolveSandboxPolicy(undefined, working)).toEqual({
      mode: 'auto',
      sandboxed: true,
      bwrapPath: '/usr/bin/bwrap',
      reason: 'sandboxed (agent.sandbox.mode auto): bubblewrap at /usr/bin/bwrap works',
    });
  });

  test('auto without bubblewrap runs unsandboxed with a warning naming what to install', () => {
    const decision = resolveSandboxPolicy('auto', missing, "route 'ci' agent.sandbox");
    expect(decision.sandboxed).toBe(false);
    expect(decision.warning).toBe(
      "agent processes run UNSANDBOXED (route 'ci' agent.sandbox.mode auto): bubblewrap (bwrap) is not on PATH; to sandbox them: apt-get install bubblewrap",
    );
    expect(decision.reason).toBe(decision.warning);
  });

  test('required without bubblewrap refuses with a HookwiseConfigError naming the missing piece', () => {
    let thrown: unknown;
    try {
      resolveSandboxPolicy('required', missing);
    } catch (error) {
      thrown = error;
    }
    expect(isHookwiseConfigError(thrown)).toBe(true);
    expect((thrown as Error).message).toContain(
      'agent.sandbox.mode is required but the sandbox is unavailable: bubblewrap (bwrap) is not on PATH; to fix: apt-get install bubblewrap',
    );
  });

  test('required with bubblewrap sandboxes; off never does, and says so', () => {
    expect(resolveSandboxPolicy('required', working).sandboxed).toBe(true);
    const off = resolveSandboxPolicy('off', working);
    expect(off).toEqual({ mode: 'off', sandboxed: false, reason: "agent.sandbox.mode is off: agent processes run unsandboxed, with the gateway's access" });
  });

  test('an unknown mode is a configuration error listing the modes', () => {
    expect(() => resolveSandboxPolicy('strict' as never, working)).toThrow("agent.sandbox.mode is 'strict': use one of auto, required, off");
  });
});
