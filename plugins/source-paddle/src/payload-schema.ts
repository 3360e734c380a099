// What Paddle Billing posts: a notification (developer.paddle.com, "Webhooks", notification payload).
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

export const paddlePayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Paddle Billing webhook notification; data is the entity the event is about.',
    docs: 'https://developer.paddle.com/webhooks/overview',
    properties: {
      event_id: field('string', 'The event id (evt_...)'),
      event_type: field('string', 'e.g. transaction.completed'),
      occurred_at: field('string', 'RFC 3339 time'),
      notification_id: field('string', 'The notification id (ntf_...)'),
      data: field('object', 'The new or changed entity'),
    },
    required: ['event_id', 'event_type', 'occurred_at', 'notification_id', 'data'],
  }),
};
