// Over real HTTP with the real worker, on the memory store and on SQLite: silent answers (the marker or nothing) and
// `deliver: none` deliver nothing and end the job; the runner's token usage is stored on the job; a coalesced job's
// templates see every event.
import type { TestGateway } from '@hookwise/testing';
import { STORES, isDone, recorded, send, startWorkerGateway, until } from './worker-gateway';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

describe.each(STORES)('worker endings on the %s store', (store) => {
  it('delivers nothing for an answer that is the silent marker, keeps the answer and usage, and shows the job as silent', async () => {
    gw = await startWorkerGateway(store, { review: {} });
    await send(gw, 'review', 'silent-1', { answer: '\n[SILENT]\n', usage: { inputTokens: 40, outputTokens: 3 } });
    await send(gw, 'review', 'spoken-1', { answer: 'Two typos in README.md.' });
    const silent = await until(gw, 'silent-1', isDone);
    expect(silent).toMatchObject({
      status: 'done',
      outcome: 'silent',
      note: 'the agent answered [SILENT]: nothing delivered',
      answer: '\n[SILENT]\n',
      usage: { inputTokens: 40, outputTokens: 3 },
    });
    await until(gw, 'spoken-1', isDone);
    expect(recorded(gw).map((d) => d.deliveryId)).toEqual(['spoken-1']);
    expect(gw.logText()).toContain("silent-1 on route 'review' ended silent: the agent answered [SILENT]: nothing delivered");
  });

  it('treats an empty answer as silent, and honours a route’s own marker over agent.silent_marker', async () => {
    gw = await startWorkerGateway(store, { review: {}, triage: { silent_marker: 'NO_ACTION' } }, { agent: { silent_marker: 'NOTHING' } });
    await send(gw, 'review', 'empty-1', { answer: '   ' });
    await send(gw, 'review', 'global-marker-1', { answer: 'NOTHING' });
    await send(gw, 'review', 'default-marker-1', { answer: '[SILENT]' });
    await send(gw, 'triage', 'route-marker-1', { answer: 'NO_ACTION' });
    await send(gw, 'triage', 'other-marker-1', { answer: 'NOTHING' });
    expect(await until(gw, 'empty-1', isDone)).toMatchObject({ outcome: 'silent', note: 'the agent answered nothing: nothing delivered' });
    expect(await until(gw, 'global-marker-1', isDone)).toMatchObject({ outcome: 'silent', note: 'the agent answered NOTHING: nothing delivered' });
    expect(await until(gw, 'route-marker-1', isDone)).toMatchObject({ outcome: 'silent' });
    // With a marker configured, the default one is an answer like any other.
    expect((await until(gw, 'default-marker-1', isDone)).outcome).toBeUndefined();
    expect((await until(gw, 'other-marker-1', isDone)).outcome).toBeUndefined();
    expect(
      recorded(gw)
        .map((d) => d.deliveryId)
        .sort(),
    ).toEqual(['default-marker-1', 'other-marker-1']);
  });

  it('completes a deliver: none job after the agent run without calling any deliverer', async () => {
    gw = await startWorkerGateway(store, { act: { deliver: 'none' } });
    await send(gw, 'act', 'none-1', { answer: 'Labelled the issue and closed it.', usage: { inputTokens: 900, outputTokens: 120, cachedInputTokens: 800 } });
    const job = await until(gw, 'none-1', isDone);
    expect(job).toMatchObject({ status: 'done', receipt: { target: 'none' }, answer: 'Labelled the issue and closed it.' });
    expect(job.outcome).toBeUndefined();
    expect(job.usage).toEqual({ inputTokens: 900, outputTokens: 120, cachedInputTokens: 800, sandbox: expect.objectContaining({ mode: 'auto' }) });
    expect(recorded(gw)).toEqual([]);
    expect(gw.logText()).toContain("none-1 on route 'act' done: the route delivers nothing (deliver: none)");
    expect(gw.logText()).not.toMatch(/unknown deliver/);
  });

  it('stores the usage a runner reports with the delivered answer', async () => {
    gw = await startWorkerGateway(store, { review: {} });
    await send(gw, 'review', 'usage-1', { answer: 'Looks good.', usage: { inputTokens: 1200, outputTokens: 85, cacheWriteTokens: 300 } });
    const job = await until(gw, 'usage-1', isDone);
    expect(job).toMatchObject({ status: 'done', usage: { inputTokens: 1200, outputTokens: 85, cacheWriteTokens: 300 }, receipt: { target: 'recorded' } });
    expect(recorded(gw)).toEqual([expect.objectContaining({ deliveryId: 'usage-1', text: 'Looks good.' })]);
  });

  it('renders a coalesced job’s prompt and deliver_extra with every event and their count, and logs the delivery ids', async () => {
    gw = await startWorkerGateway(store, {
      pr: {
        coalesce: { key: 'pr-{number}', window_seconds: 0.5, mode: 'all' },
        prompt: '{__event_count__} events on #{number}: {__events__.0.action} first, {action} last',
        deliver_extra: { summary: '{__event_count__} events', first: '{__events__.0.action}' },
      },
    });
    await send(gw, 'pr', 'pr-a', { number: 7, action: 'opened' });
    expect(await send(gw, 'pr', 'pr-b', { number: 7, action: 'synchronize' })).toMatchObject({ coalesced: true });
    expect(await send(gw, 'pr', 'pr-c', { number: 7, action: 'edited' })).toMatchObject({ coalesced: true });
    const job = await until(gw, 'pr-a', isDone);
    expect(job.prompt).toBe('3 events on #7: opened first, edited last');
    expect(recorded(gw)).toEqual([
      { deliveryId: 'pr-a', text: 'Answer to: 3 events on #7: opened first, edited last', extra: { summary: '3 events', first: 'opened' } },
    ]);
    expect(gw.logText()).toContain("agent run for pr-a on route 'pr' stands for 3 coalesced events: pr-a, pr-b, pr-c");
  });
});
