// A stable key per chunk of one delivery, for platforms that deduplicate by a client-chosen id (Matrix
// transaction ids, Home Assistant notification ids): a retried delivery reuses the key of its first attempt.
import { createHash } from 'node:crypto';
import type { OutgoingChunk } from './define-platform';

/**
 * 32 hex characters from route and delivery id (delivery ids are unique per route only), then the chunk
 * index: `<hex>.<index>` by default. Safe in URL paths and ids: no secret or payload text goes into it.
 */
export function deliveryKey(chunk: Pick<OutgoingChunk, 'route' | 'deliveryId' | 'index'>, separator = '.'): string {
  const digest = createHash('sha256').update(`${chunk.route}\0${chunk.deliveryId}`).digest('hex').slice(0, 32);
  return `${digest}${separator}${chunk.index}`;
}
