// Tells an open `events/stream` that the event types its client is granted changed (`notifications/events/list_changed`),
// so that the client calls `events/list` again instead of polling the list.
import { LIST_CHANGED } from './events-protocol';

/**
 * How often the types are compared with the last ones seen: a subscription route comes or goes when
 * webhook_subscriptions.json changes, which the route table notices on its next read (one stat of the file).
 */
export const LIST_CHECK_MS = 1000;

/** Sends list_changed whenever `names()` differs from what it was at the last check; returns the function that stops. */
export function watchEventList(names: () => string[], send: (method: string, params: Record<string, unknown>) => Promise<void>): () => void {
  let listed = names().join('\n');
  const timer = setInterval(() => {
    const now = names().join('\n');
    if (now === listed) return;
    listed = now;
    void send(LIST_CHANGED, {}).catch(() => undefined);
  }, LIST_CHECK_MS);
  return () => clearInterval(timer);
}
