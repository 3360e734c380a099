// A stable key per chunk of one delivery, for platforms that deduplicate by a client-chosen id (Matrix
// transaction ids, Home Assistant notification ids): a retried delivery reuses the key of its first attempt.
import { createHash } from 'node:crypto';
import type { OutgoingChunk } from './define-platform';

/**
 * 32 hex characters from route, delivery id and destination (delivery ids are unique per route only), then the chunk
 * index: `<hex>.<index>` by default. Safe in URL paths and ids: no secret or payload text goes into it.
 */
export function deliveryKey(chunk: Pick<OutgoingChunk, 'route' | 'deliveryId' | 'index'> & { destination?: string }, separator = '.'): string {
  return `${idempotencyDigest(chunk)}${separator}${chunk.index}`;
}

/**
 * 32 hex characters naming one delivery to one destination: route, delivery id and destination (a route that
 * delivers to two Slack channels gives each its own keys, so the platform never takes the second for a retry
 * of the first). Without a destination (a deliverer called outside the worker), route and delivery id only.
 */
export function idempotencyDigest(of: { route: string; deliveryId: string; destination?: string }): string {
  const text = of.destination === undefined ? `${of.route}\0${of.deliveryId}` : `${of.route}\0${of.deliveryId}\0${of.destination}`;
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
