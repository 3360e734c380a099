// The lifeline FIFOs are made ahead, 16 by one `mkfifo` (spawning it was about 3 ms of the gateway's CPU per run):
// each run still gets a FIFO of its own (0600, in a private 0700 directory), and it is removed when the run closes
// it; a directory goes once all of its FIFOs were used and closed.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openLifeline } from '../../src/lifeline';

jest.mock('node:child_process', () => {
  const actual = jest.requireActual<typeof import('node:child_process')>('node:child_process');
  return { ...actual, execFile: jest.fn(actual.execFile) };
});
const spawned = execFile as unknown as jest.Mock;

let parent: string;
beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), 'hw-lifeline-pool-'));
});
afterEach(() => {
  spawned.mockClear();
  rmSync(parent, { recursive: true, force: true });
});

it('makes 20 lifelines with two mkfifo runs, each its own private FIFO, and removes them as they close', async () => {
  const lines = await Promise.all(Array.from({ length: 20 }, () => openLifeline(parent)));
  expect(spawned.mock.calls.map(([file]) => file)).toEqual(['mkfifo', 'mkfifo']);
  expect(new Set(lines.map((line) => line.path)).size).toBe(20);
  for (const line of lines) {
    const stat = statSync(line.path);
    expect(stat.isFIFO()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
    expect(statSync(dirname(line.path)).mode & 0o777).toBe(0o700);
  }
  const dirs = [...new Set(lines.map((line) => dirname(line.path)))];
  expect(dirs).toHaveLength(2);

  await lines[0].close();
  expect(existsSync(lines[0].path)).toBe(false);
  await lines[0].close(); // twice is harmless
  for (const line of lines.slice(1)) await line.close();
  // The first batch was used up and closed: its directory is gone; the second still holds FIFOs made ahead.
  const full = dirs.find((dir) => !existsSync(dir));
  expect(full).toBeDefined();
  const left = dirs.find((dir) => existsSync(dir))!;
  expect(readdirSync(left)).toHaveLength(12);
});
