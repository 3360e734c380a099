// Replay for webhook subscriptions: a client that subscribes with the `cursor` of the last event it received (after
// its subscription lapsed, or on a new callback) is sent what it missed before the live events, oldest first, as
// an events/poll from that cursor would read it: the same filter, the same retention and `maxAgeMs` floor
// (`truncated: true` when the cursor is older), at most MAX_REPLAYED events (then `truncated: true` too, and the
// answer's cursor says where the replay stopped, so an events/poll from it reads the rest). An event accepted while
// the subscription is being made may come twice, once replayed and once live: deliveries are at least once and a
// receiver drops a repeat by its `eventId`.
import { encodeCursor, type EventPosition } from './event-cursor';
import type { EventOccurrence } from './event-data';

/** The most events one subscribe replays: what a subscription's outbox holds (older ones would be dropped). */
export const MAX_REPLAYED = 1000;

/** An event as it is posted: the occurrence with its cursor. */
export type PostedEvent = EventOccurrence & { cursor: string };

/** What one read from a position gives: the events (oldest first), the position after them, whether more wait. */
export interface ReplayPage {
  events: PostedEvent[];
  position: EventPosition;
  hasMore: boolean;
}

export interface Replay {
  events: PostedEvent[];
  /** Where the replay ended: the next event after it is one the live deliveries send (or a poll from it reads). */
  cursor: string;
  truncated: boolean;
}

/**
 * Reads from `start.from` page by page until the store has nothing more, or MAX_REPLAYED events are gathered.
 * `start.truncated`: the cursor asked was older than what the store keeps.
 */
export async function replayEvents(start: { from: EventPosition; truncated: boolean }, read: (from: EventPosition) => Promise<ReplayPage>): Promise<Replay> {
  const events: PostedEvent[] = [];
  let from = start.from;
  for (;;) {
    const next = await read(from);
    const room = MAX_REPLAYED - events.length;
    events.push(...next.events.slice(0, room));
    const full = next.events.length > room || (next.hasMore && events.length >= MAX_REPLAYED);
    if (full) return { events, cursor: events[events.length - 1].cursor, truncated: true };
    if (!next.hasMore) return { events, cursor: encodeCursor(next.position), truncated: start.truncated };
    from = next.position;
  }
}
