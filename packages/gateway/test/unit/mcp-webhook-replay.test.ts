// replayEvents: pages are read until the store has nothing more, or MAX_REPLAYED events are gathered; then the
// replay is truncated and its cursor is the last gathered event's, where an events/poll reads on; else the cursor
// is the position the last read ended at.
import { encodeCursor, type EventPosition } from '../../src/mcp-events/event-cursor';
import { MAX_REPLAYED, replayEvents, type PostedEvent, type ReplayPage } from '../../src/mcp-events/webhook-replay';

const event = (n: number): PostedEvent => ({ eventId: `e-${n}`, name: 'prs', timestamp: new Date(n).toISOString(), data: {}, cursor: `c-${n}` });

/** Reads of `size` events over `total` events; a position is the count read (t), the last one's t is `total`. */
function reads(total: number, size: number): (from: EventPosition) => Promise<ReplayPage> {
  return async (from) => {
    const events = Array.from({ length: Math.min(size, total - from.t) }, (_, i) => event(from.t + i));
    const t = from.t + events.length;
    return { events, position: { t, id: '' }, hasMore: t < total };
  };
}
const start = (truncated: boolean) => ({ from: { t: 0, id: '' }, truncated });
const end = (total: number) => encodeCursor({ t: total, id: '' });

describe('replayEvents', () => {
  it('gathers every page while there is more, ending at the last page cursor', async () => {
    const replay = await replayEvents(start(false), reads(203, 2));
    expect(replay.events.map((e) => e.eventId)).toEqual(Array.from({ length: 203 }, (_, i) => `e-${i}`));
    expect(replay).toMatchObject({ cursor: end(203), truncated: false });
  });

  it('keeps a truncated start truncated', async () => {
    expect(await replayEvents(start(true), reads(0, 10))).toEqual({ events: [], cursor: end(0), truncated: true });
  });

  it(`stops at ${MAX_REPLAYED} events, truncated, with the cursor of the last one sent`, async () => {
    const replay = await replayEvents(start(false), reads(MAX_REPLAYED + 250, 300));
    expect(replay.events).toHaveLength(MAX_REPLAYED);
    expect(replay).toMatchObject({ cursor: `c-${MAX_REPLAYED - 1}`, truncated: true });
  });

  it(`is not truncated when exactly ${MAX_REPLAYED} events were waiting`, async () => {
    const replay = await replayEvents(start(false), reads(MAX_REPLAYED, 250));
    expect(replay).toMatchObject({ cursor: end(MAX_REPLAYED), truncated: false });
    expect(replay.events).toHaveLength(MAX_REPLAYED);
  });
});
