// An action's `max` counts per event across the job's runs, in the store's progress space: on SQLite the count
// survives closing and reopening the file (a gateway restarted between two attempts of one job).
import { Writable } from 'node:stream';
import type { Job, ProgressKV } from '@hookwise/core';
import { ActionCatalogue } from '../../../gateway/src/actions/action-catalogue';
import { RunActions } from '../../../gateway/src/actions/run-actions';
import { createLogger } from '../../../gateway/src/observe/logger';
import type { Route } from '../../../gateway/src/routes/routes';
import { sqliteStoresPerTest } from '../sqlite-temp-dir';

const sent: string[] = [];
const catalogue = new ActionCatalogue([
  {
    action: {
      name: 'test.comment',
      description: 'Comment.',
      inputSchema: { type: 'object', required: ['body'], properties: { body: { type: 'string' } } },
      run: async (input) => {
        sent.push(input.body as string);
        return { id: sent.length };
      },
    },
    by: { deliverer: 'log', plugin: 'test', requiresEnabled: false },
  },
]);
const route = { name: 'once', actions: { 'test.comment': { max: 1 } }, destinations: [] } as unknown as Route;
const job = { id: 'job-1', route: 'once', deliveryId: 'd-1', payload: {} } as unknown as Job;
const logger = createLogger({ stream: new Writable({ write: (_c, _e, done) => done() }), format: 'json', level: 'error' });

describe('action counts on SQLite', () => {
  const tmp = sqliteStoresPerTest('hookwise-sqlite-actions-');

  it('holds max across a restart between two attempts of one job', async () => {
    sent.length = 0;
    const runOn = (progress: ProgressKV) =>
      new RunActions(
        {
          logger,
          retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
          progress,
          catalogue,
          delivererById: () => ({ deliver: async () => ({}) }),
          platformEnabled: () => true,
        },
        route,
        job,
        new AbortController().signal,
      );
    const first = tmp.open({ backgroundCheckpoints: false });
    expect(await runOn(first.progress).call('test.comment', { body: 'attempt 1' })).toMatchObject({ ok: true });
    await first.close();

    const reopened = tmp.open({ backgroundCheckpoints: false });
    const second = await runOn(reopened.progress).call('test.comment', { body: 'attempt 2' });
    expect(second).toMatchObject({ ok: false, refused: true, text: expect.stringContaining('at most 1 time(s) per event') });
    expect(sent).toEqual(['attempt 1']);
  });
});
