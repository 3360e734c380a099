// A command transform runs under the same memory and process limits as the route's agent runs
// (agent.sandbox.memory_mb, processes; real bubblewrap, mode required): a fork bomb and a runaway allocation in a
// transform end, the event is accepted as any failed transform's is, and the recorded reason names the limit and
// the key to raise.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from '@hookwise/core';
import { isDone, until } from './worker-gateway';
import { signGeneric, startTestGateway, type TestGateway } from '@hookwise/testing';

jest.setTimeout(60_000);

const SECRET = 'transform-limits-secret-abcdefghijk';
const scripts = mkdtempSync(join(tmpdir(), 'hookwise-transform-limits-'));
// Starts processes that stay until it has 200 of them, as a fork bomb would (without a limit it would pass).
const forks = join(scripts, 'forks.sh');
writeFileSync(forks, 'i=0\nwhile [ $i -lt 200 ]; do sleep 30 & i=$((i+1)); done\necho done\n');
// Holds 1 GiB, 32 MiB at a time (bounded, so that without the limit it ends and the test fails cleanly).
const hog = join(scripts, 'hog.js');
writeFileSync(hog, "const held = []; for (let i = 0; i < 32; i++) held.push(Buffer.alloc(32 * 1024 * 1024, 1)); console.log('held 1 GiB');\n");

let gw: TestGateway | undefined;

beforeAll(async () => {
  const route = (command: string[]) => ({ secret: SECRET, deliver: 'log', prompt: 'E={__transform_error__}', transform: { command, timeout_seconds: 20 } });
  gw = await startTestGateway({
    config: {
      platforms: { webhook: { enabled: true, extra: { routes: { forks: route(['/bin/sh', forks]), hog: route(['node', hog]) } } } },
      agent: { runner: 'echo', sandbox: { mode: 'required', memory_mb: 256, processes: 16 } },
      retry: { max_attempts: 1 },
      admin: { enabled: true },
      store: { backend: 'memory' },
    },
    pollMs: 20,
  });
});
afterAll(async () => {
  await gw?.stop();
  rmSync(scripts, { recursive: true, force: true });
});

async function transformError(route: string, id: string): Promise<string> {
  const body = JSON.stringify({ n: 1 });
  const answer = await gw!.post(route, body, { 'x-webhook-signature': signGeneric(SECRET, body), 'x-request-id': id });
  expect(answer.status).toBe(202);
  const job = (await until(gw!, id, isDone)) as Job & { prompt?: string };
  expect(job.status).toBe('done');
  return String(job.prompt);
}

describe('transform: command under the agent sandbox limits', () => {
  it('a fork bomb ends at agent.sandbox.processes, and the reason says so', async () => {
    const started = Date.now();
    const error = await transformError('forks', 'limit-forks');
    expect(error).toMatch(
      /^E=the transform of route 'forks' reached its process limit: starting another process failed \(EAGAIN\) under agent\.sandbox\.processes \(16 at once\); raise agent\.sandbox\.processes if the transform needs more/,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a runaway allocation ends at agent.sandbox.memory_mb, and the reason says so', async () => {
    const error = await transformError('hog', 'limit-hog');
    expect(error).toMatch(
      /^E=the transform of route 'hog' ran out of memory: an allocation failed \(ENOMEM\) under agent\.sandbox\.memory_mb \(256 MiB of memory per process\); raise agent\.sandbox\.memory_mb if the transform needs more/,
    );
  });
});
