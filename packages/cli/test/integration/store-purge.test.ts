// `hookwise store purge` through the built binary on a SQLite config dir holding done jobs that finished 40 and 10
// days ago, a dead letter and a waiting job: --dry-run counts and deletes nothing, --older-than 30d deletes only the
// 40-day-old done jobs, the default cutoff is store.retention.jobs_days, and a malformed retention or cutoff is refused
// with what to write.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '@hookwise/core';
import { openSqliteStore } from '@hookwise/store-sqlite';
import { jobInput } from '@hookwise/testing';
import { runCli, tempHome } from '../cli-process';

jest.setTimeout(60_000);

const DAY = 24 * 60 * 60 * 1000;
let home: string;
const ids: Record<string, string> = {};

/** A job answered and completed at `at` (the store's clock set back), as a gateway that ran then would leave it. */
async function doneAt(file: string, name: string, at: number): Promise<void> {
  const store = await openSqliteStore({ file, now: () => at, backgroundCheckpoints: false });
  try {
    const job = await store.jobs.enqueue(jobInput({ deliveryId: name, receivedAt: at }));
    const leased = await store.jobs.lease('seed', 30_000);
    await store.jobs.saveAnswer(leased!.id, 'prompt', `answer of ${name}`, { inputTokens: 3, outputTokens: 2 });
    await store.jobs.complete(job.id, { ok: true });
    ids[name] = job.id;
  } finally {
    await store.close();
  }
}

async function withStore<T>(use: (store: Store) => Promise<T>): Promise<T> {
  const store = await openSqliteStore({ file: join(home, 'hookwise.sqlite'), backgroundCheckpoints: false });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

const config = (retention = ''): void =>
  writeFileSync(join(home, 'config.yaml'), `platforms:\n  webhook:\n    enabled: true\nstore:\n  backend: sqlite\n${retention}`);

beforeAll(async () => {
  home = tempHome('hookwise-purge-');
  config();
  const file = join(home, 'hookwise.sqlite');
  const now = Date.now();
  await doneAt(file, 'forty-a', now - 40 * DAY);
  await doneAt(file, 'forty-b', now - 40 * DAY);
  await doneAt(file, 'ten', now - 10 * DAY);
  await withStore(async (store) => {
    const dead = await store.jobs.enqueue(jobInput({ deliveryId: 'dead' }));
    await store.jobs.lease('seed', 30_000);
    await store.jobs.fail(dead.id, { at: now, step: 'agent', attempt: 1, message: 'gave up', retryable: false }, null);
    ids.dead = dead.id;
    ids.waiting = (await store.jobs.enqueue(jobInput({ deliveryId: 'waiting' }))).id;
  });
});

const statuses = (): Promise<Record<string, string | undefined>> =>
  withStore(async (store) => Object.fromEntries(await Promise.all(Object.entries(ids).map(async ([name, id]) => [name, (await store.jobs.get(id))?.status]))));

it('--dry-run counts the done jobs past the cutoff and deletes nothing', async () => {
  const result = await runCli(['store', 'purge', '--older-than', '30d', '--dry-run'], home);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^2 done job\(s\) finished before .* would be deleted \(dry run: nothing deleted\)/m);
  expect(Object.values(await statuses()).filter((s) => s === undefined)).toHaveLength(0);
});

it('--older-than 30d deletes the 40-day-old done jobs and keeps the rest, dead letters and waiting jobs too', async () => {
  const result = await runCli(['store', 'purge', '--older-than', '30d', '--json'], home);
  expect(result.code).toBe(0);
  const answer = JSON.parse(result.stdout) as { jobs: number; dryRun: boolean; finishedBefore: string };
  expect(answer).toMatchObject({ jobs: 2, dryRun: false });
  expect(Math.abs(Date.parse(answer.finishedBefore) - (Date.now() - 30 * DAY))).toBeLessThan(60_000);
  expect(await statuses()).toEqual({ 'forty-a': undefined, 'forty-b': undefined, ten: 'done', dead: 'dead', waiting: 'pending' });
  expect(await withStore(async (store) => (await store.jobs.get(ids.ten))?.answer)).toBe('answer of ten');
});

it('without --older-than the cutoff is store.retention.jobs_days', async () => {
  config('  retention:\n    jobs_days: 20\n');
  const kept = await runCli(['store', 'purge', '--dry-run'], home);
  expect(kept.stdout).toMatch(/^0 done job\(s\)/m);
  config('  retention:\n    jobs_days: 5\n');
  const purged = await runCli(['store', 'purge'], home);
  expect(purged.code).toBe(0);
  expect(purged.stdout).toMatch(/^Deleted 1 done job\(s\) finished before .*; dead letters and waiting jobs are kept\./m);
  expect((await statuses()).ten).toBeUndefined();
});

it('refuses a malformed retention or cutoff, saying what to write', async () => {
  config('  retention:\n    jobs_days: -1\n');
  const retention = await runCli(['store', 'purge', '--older-than', '30d'], home);
  expect(retention.code).toBe(1);
  expect(retention.stderr).toContain('store.retention.jobs_days: must be > 0');
  config();
  const cutoff = await runCli(['store', 'purge', '--older-than', 'a month'], home);
  expect(cutoff.code).toBe(1);
  expect(cutoff.stderr).toContain('--older-than must be a duration back from now such as 30m, 24h or 7d, or a time');
});
