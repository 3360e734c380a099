// A timeout or abort ends the whole sandbox: killing the process group runProcess-style callers kill (bwrap's)
// leaves nothing of the run alive, background processes included. And a run's fresh work dir goes with it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { openSandboxRun, probeSandbox, resolveSandboxPolicy } from '../../src';
import { pidsWith } from '../helpers';

const bwrap = spawnSync('sh', ['-c', 'command -v bwrap']).stdout.toString().trim();
const testWithBwrap = bwrap ? test : test.skip;

testWithBwrap('killing the process group of a sandboxed run ends every process inside it', async () => {
  const run = await openSandboxRun({ decision: resolveSandboxPolicy('required', await probeSandbox()), label: 'lifetime', network: [] });
  const marker = `hw-sandbox-lifetime-${process.pid}-${Date.now()}`;
  // A background sleep in its own session inside: only the sandbox's teardown can reach it.
  // (`sh -c '...; :' <name>` keeps a shell whose argv[0] is the marker alive around the sleep.)
  const script = `setsid sh -c 'sleep 300; :' ${marker}-bg & sh -c 'sleep 300; :' ${marker}-fg; wait`;
  const child = run.spawn('sh', ['-c', script], { PATH: '/usr/bin:/bin' });
  const started = Date.now();
  // A trailing NUL matches the shells' own argv[0], not the script text in bwrap's command line.
  const inside = () => [...pidsWith(`${marker}-bg\u0000`), ...pidsWith(`${marker}-fg\u0000`)];
  while (inside().length < 2 && Date.now() - started < 5000) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(inside()).toHaveLength(2);
  const exited = new Promise((resolve) => child.on('close', resolve));
  process.kill(-(child.pid as number), 'SIGTERM');
  await exited;
  const deadline = Date.now() + 3000;
  while (pidsWith(marker).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(pidsWith(marker)).toEqual([]);
  await run.close();
  expect(existsSync(run.workDir)).toBe(false);
});
