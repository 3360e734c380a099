// Skill staging in a fixed agent.cwd (real bubblewrap): a run can leave links in its work dir, and the next run's
// staging must neither follow them (writing skill files into a host dir the sandbox cannot write) nor fail on them
// (which dead-lettered every later run of the route).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Job } from '@hookwise/core';
import { probeSandbox } from '@hookwise/sandbox';
import { validateConfigObject } from '../../src/config/load';
import { AgentSandboxes } from '../../src/jobs/agent-sandbox';
import { createLogger } from '../../src/observe/logger';
import type { Route } from '../../src/routes/routes';

let root: string;
let configDir: string;
let work: string;
let outside: string;
let sandboxes: AgentSandboxes;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hw-skill-staging-'));
  configDir = join(root, 'config');
  work = join(root, 'work');
  outside = join(root, 'outside');
  for (const dir of [configDir, work, outside, join(configDir, 'skills', 'review', 'scripts')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(configDir, 'skills', 'review', 'SKILL.md'), '---\nname: review\ndescription: Reviews\n---\nRead the diff.\n');
  writeFileSync(join(configDir, 'skills', 'review', 'scripts', 'check.sh'), '#!/bin/sh\necho checked\n', { mode: 0o755 });
  const config = validateConfigObject({
    platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', routes: { ci: { secret: 'INSECURE_NO_AUTH', deliver: 'log' } } } } },
    agent: { runner: 'echo', sandbox: { mode: 'required' } },
  });
  const logger = createLogger({ stream: new Writable({ write: (_c, _e, done) => done() }), format: 'json', level: 'debug' });
  sandboxes = new AgentSandboxes({ config, configDir, logger });
});
afterEach(async () => {
  await sandboxes.close();
  rmSync(root, { recursive: true, force: true });
});

const route = { name: 'ci' } as Route;
const job = (n: number) => ({ id: `job-${n}`, deliveryId: `d-${n}` }) as Job;
const skill = () => ({ name: 'review', description: 'Reviews', body: 'Read the diff.', dir: join(configDir, 'skills', 'review') });

/** One run in the fixed work dir: staging, then a process in the sandbox reading the staged skill and running its script. */
async function runOnce(n: number): Promise<string> {
  const opened = await sandboxes.open(route, job(n), { workDir: work }, [skill()]);
  try {
    expect(opened.sandbox.sandboxed).toBe(true);
    const dir = opened.skills[0].dir!;
    expect(realpathSync(dir).startsWith(`${realpathSync(work)}/`)).toBe(true);
    const plan = opened.sandbox.plan('/bin/sh', ['-c', `cat ${dir}/SKILL.md && ${dir}/scripts/check.sh`], { PATH: '/usr/bin:/bin' });
    const child = spawnSync(plan.command, plan.args, { env: plan.env, cwd: plan.cwd, encoding: 'utf8' });
    expect(child.stderr).toBe('');
    return child.stdout;
  } finally {
    await opened.close();
  }
}

describe('skill staging in a fixed agent.cwd', () => {
  it('does not follow a .hookwise-skills link to a host dir: the target stays untouched and two runs work', async () => {
    const probe = await probeSandbox();
    if (!probe.available) return console.warn(`skipped: ${probe.reason}`);
    symlinkSync(outside, join(work, '.hookwise-skills'));
    for (const n of [1, 2]) expect(await runOnce(n)).toContain('Read the diff.\nchecked\n');
    expect(readdirSync(outside)).toEqual([]);
    // The staged copies go with their run; the link the agent left is its own business.
    expect(readdirSync(work).filter((name) => name.startsWith('.hookwise-skills-'))).toEqual([]);
  });

  it('a link in the way (to a file, or dangling at the skill name) does not fail this run or the next', async () => {
    const probe = await probeSandbox();
    if (!probe.available) return console.warn(`skipped: ${probe.reason}`);
    writeFileSync(join(outside, 'hosts'), 'unchanged\n');
    symlinkSync(join(outside, 'hosts'), join(work, '.hookwise-skills'));
    for (const n of [1, 2]) expect(await runOnce(n)).toContain('checked');
    rmSync(join(work, '.hookwise-skills'));
    mkdirSync(join(work, '.hookwise-skills'));
    symlinkSync(join(outside, 'made-by-link'), join(work, '.hookwise-skills', 'review'));
    for (const n of [3, 4]) expect(await runOnce(n)).toContain('checked');
    expect(readFileSync(join(outside, 'hosts'), 'utf8')).toBe('unchanged\n');
    expect(existsSync(join(outside, 'made-by-link'))).toBe(false);
  });
});
