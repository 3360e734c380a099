// Replay for webhook subscriptions: a client that subscribes with the `cursor` of the last event it received (after
// its subscription lapsed, or on a new callback) is sent what it missed before the live events, oldest first, as
// an events/poll from that cursor would read it: the same filter, the same retention and `maxAgeMs` floor
// (`truncated: true` when the cursor is older), at most MAX_REPLAYED events (then `truncated: true` too, and the
// answer's cursor says where the replay stopped, so an events/poll from it reads the rest). An event accepted while
// the subscription is being made may come twice, once replayed and once live: deliveries are at least once and a
// receiver drops a repeat by its `eventId`.
import type { EventOccurrence } from './event-data';

/** The most events one subscribe replays: what a subscription's outbox holds (older ones would be dropped). */
export const MAX_REPLAYED = 1000;

/** An event as it is posted: the occurrence with its cursor. */
export type PostedEvent = EventOccurrence & { cursor: string };

export interface ReplayPage {
  events: PostedEvent[];
  /** The cursor after the page. */
  cursor: string;
  hasMore: boolean;
}

export interface Replay {
  events: PostedEvent[];
  /** Where the replay ended: the next event after it is one the live deliveries send (or a poll from it reads). */
  cursor: string;
  truncated: boolean;
}

/**
 * Reads pages until the store has nothing more up to the moment given to `page`, or MAX_REPLAYED events are
 * gathered. `startTruncated`: the cursor was older than what the store keeps.
 */
export async function replayEvents(page: () => Promise<ReplayPage>, startTruncated: boolean): Promise<Replay> {
  const events: PostedEvent[] = [];
  for (;;) {
    const next = await page();
    const room = MAX_REPLAYED - events.length;
    events.push(...next.events.slice(0, room));
    const full = next.events.length > room || (next.hasMore && events.length >= MAX_REPLAYED);
    if (full) return { events, cursor: events[events.length - 1].cursor, truncated: true };
    if (!next.hasMore) return { events, cursor: next.cursor, truncated: startTruncated };
  }
}
