// Titles and subjects that name the webhook a message answers (e-mail subject, notification title).
import { renderTemplate } from '@hookwise/core';
import type { OutgoingChunk } from './define-platform';

/**
 * Renders `template` with exactly `{route}`, `{event}` and `{delivery_id}` (same renderer as deliver_extra:
 * unknown placeholders stay as written) and appends " (2/3)" when the answer was split.
 */
export function renderChunkTemplate(template: string, chunk: Pick<OutgoingChunk, 'route' | 'event' | 'deliveryId' | 'index' | 'count'>): string {
  const text = renderTemplate(template, { route: chunk.route, event: chunk.event, delivery_id: chunk.deliveryId });
  return chunk.count > 1 ? `${text} (${chunk.index + 1}/${chunk.count})` : text;
}
