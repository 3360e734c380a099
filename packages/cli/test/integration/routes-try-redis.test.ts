// `hookwise routes try` on the Redis store (issue 32): the trial reads the stored events wherever the config's store
// keeps them, not only from SQLite. A real `gateway run` with `store: {backend: redis, url, prefix}` answers three
// events (echo agent, delivered to a recording stand-in of a Slack incoming webhook); the built binary's trial then
// reads them back from Redis and shows the old and new answers side by side, and nothing reaches the destination.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startRecordingServer, startRedisServer, type RecordingServer, type RunningRedis } from '@hookwise/testing';
import { runCli } from '../cli-process';
import { answeredTrialHome, TRIAL_TITLES } from '../trial-home';

jest.setTimeout(120_000);

const TITLES = TRIAL_TITLES;
let home: string;
let redis: RunningRedis;
let destination: RecordingServer;

beforeAll(async () => {
  redis = await startRedisServer();
  destination = await startRecordingServer(() => ({ status: 200, body: 'ok' }));
  home = await answeredTrialHome(destination, 'hookwise-trial-redis-', 'redis-trial', [
    'store:',
    '  backend: redis',
    `  url: ${redis.url}`,
    '  prefix: "trial-redis:"',
  ]);
});

afterAll(async () => {
  await destination?.close();
  await redis?.stop();
});

it('reads the events a gateway answered from Redis and prints the old and new answers side by side; nothing is delivered', async () => {
  // The events are in Redis, not in a SQLite file the trial could have read instead.
  expect(existsSync(join(home, 'hookwise.sqlite'))).toBe(false);
  const result = await runCli(['routes', 'try', 'ci', '--prompt', 'new {n}: {title}'], home, { COLUMNS: '160' });
  if (result.code !== 0) throw new Error(`hookwise routes try exited ${result.code}: ${result.stderr}`);
  const out = result.stdout;
  for (const [i, title] of TITLES.entries()) {
    const line = out.split('\n').find((l) => l.includes(`old ${i + 1}: ${title}`));
    expect(line).toBeDefined();
    expect(line).toMatch(new RegExp(`old ${i + 1}: ${title}\\s+│ new ${i + 1}: ${title}$`));
  }
  expect(out).toMatch(/OLD: answer · - tokens · - · done\/delivered\s+│ NEW: answer · - tokens · \d+\.\ds/);
  expect(out).toMatch(/Trial t-\S+ on route 'ci': 3 events, 3 runs, silent 0% before \/ 0% now/);
  expect(out).toContain('Nothing was delivered.');
  expect(destination.requests).toHaveLength(TITLES.length);
  // The stored job (read from Redis too) keeps its own answer: the trial's went to the trial record.
  const shown = await runCli(['deliveries', 'show', 'redis-trial-1', '--json'], home);
  expect(shown.code).toBe(0);
  expect(JSON.parse(shown.stdout)).toMatchObject({ answer: 'old 1: keep this', status: 'done' });
});
