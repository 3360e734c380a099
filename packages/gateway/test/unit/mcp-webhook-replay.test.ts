// replayEvents: pages are read until the store has nothing more, or MAX_REPLAYED events are gathered; then the
// replay is truncated and its cursor is the last gathered event's, where an events/poll reads on.
import { MAX_REPLAYED, replayEvents, type PostedEvent, type ReplayPage } from '../../src/mcp-events/webhook-replay';

const event = (n: number): PostedEvent => ({ eventId: `e-${n}`, name: 'prs', timestamp: new Date(n).toISOString(), data: {}, cursor: `c-${n}` });

/** Pages of `size` events over `total` events, the last page's cursor `end`. */
function pages(total: number, size: number): () => Promise<ReplayPage> {
  let next = 0;
  return async () => {
    const events = Array.from({ length: Math.min(size, total - next) }, (_, i) => event(next + i));
    next += events.length;
    return { events, cursor: next < total ? events[events.length - 1].cursor : 'end', hasMore: next < total };
  };
}

describe('replayEvents', () => {
  it('gathers every page while there is more, ending at the last page cursor', async () => {
    const replay = await replayEvents(pages(1200 - MAX_REPLAYED + 3, 2), false);
    expect(replay.events.map((e) => e.eventId)).toEqual(Array.from({ length: 203 }, (_, i) => `e-${i}`));
    expect(replay).toMatchObject({ cursor: 'end', truncated: false });
  });

  it('keeps a truncated start truncated', async () => {
    expect(await replayEvents(pages(0, 10), true)).toEqual({ events: [], cursor: 'end', truncated: true });
  });

  it(`stops at ${MAX_REPLAYED} events, truncated, with the cursor of the last one sent`, async () => {
    const replay = await replayEvents(pages(MAX_REPLAYED + 250, 300), false);
    expect(replay.events).toHaveLength(MAX_REPLAYED);
    expect(replay).toMatchObject({ cursor: `c-${MAX_REPLAYED - 1}`, truncated: true });
  });

  it(`is not truncated when exactly ${MAX_REPLAYED} events were waiting`, async () => {
    const replay = await replayEvents(pages(MAX_REPLAYED, 250), false);
    expect(replay).toMatchObject({ cursor: 'end', truncated: false });
    expect(replay.events).toHaveLength(MAX_REPLAYED);
  });
});
