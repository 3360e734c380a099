// {__previous__}: which event of a key was answered last (kept in the memos, the payload read from its job), and how
// templates render it. A retried job sees its own predecessor, never itself.
import { createLogger } from '../../src/observe/logger';
import { PreviousEvents } from '../../src/jobs/previous-event';
import { promptOf } from '../../src/jobs/job-templates';
import { MemoryMemoKV, createMemoryStore } from '../../src/stores/memory';

describe('previous event of a key', () => {
  const logger = createLogger({ level: 'error', format: 'json' });
  const input = (sha: string) => ({
    route: 'review',
    event: 'pull_request',
    deliveryId: `d-${sha}`,
    payload: { head: { sha } },
    concurrencyKey: 'acme/api#7',
    receivedAt: Date.now(),
  });

  it('gives each answered job of a key the payload of the one answered before it, also when retried', async () => {
    const store = createMemoryStore();
    const previous = new PreviousEvents(new MemoryMemoKV(), store.jobs, logger);
    const first = await store.jobs.enqueue(input('aaa'));
    expect(await previous.payloadBefore('review', first)).toBeUndefined();
    await previous.remember('review', first);
    // Its own delivery retry (after the answer was stored) still has no predecessor.
    expect(await previous.payloadBefore('review', first)).toBeUndefined();
    const second = await store.jobs.enqueue(input('bbb'));
    expect(await previous.payloadBefore('review', second)).toEqual({ head: { sha: 'aaa' } });
    await previous.remember('review', second);
    await previous.remember('review', second);
    expect(await previous.payloadBefore('review', second)).toEqual({ head: { sha: 'aaa' } });
    const third = await store.jobs.enqueue(input('ccc'));
    expect(promptOf('from {__previous__.head.sha} to {head.sha}', { ...third, previous: await previous.payloadBefore('review', third) })).toBe(
      'from bbb to ccc',
    );
    // Another route, or a job without a key: nothing.
    expect(await previous.payloadBefore('other', third)).toBeUndefined();
    expect(await previous.payloadBefore('review', { ...third, concurrencyKey: undefined })).toBeUndefined();
    expect(promptOf('from {__previous__.head.sha}', { payload: {} })).toBe('from {__previous__.head.sha}');
  });
});
