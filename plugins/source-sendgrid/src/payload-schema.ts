// What SendGrid's Event Webhook posts is a JSON array of events (twilio.com/docs/sendgrid, "Event Webhook
// Reference"); the payload the source stores is that array as `{ events: [...] }`.
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, listOf, openObject } from '@hookwise/kit/source';

const DOCS = 'https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/event';

export const sendgridPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A SendGrid Event Webhook batch: the posted JSON array as events (the source wraps it in an object).',
    docs: DOCS,
    properties: {
      events: listOf(
        openObject({
          description: 'One SendGrid event',
          docs: DOCS,
          properties: {
            email: field('string'),
            timestamp: field('integer', 'Seconds since the epoch'),
            event: field('string', 'processed, delivered, open, click, bounce, ...'),
            sg_event_id: field('string'),
            sg_message_id: field('string'),
            'smtp-id': field('string'),
            category: field(['string', 'array']),
          },
          required: ['email', 'timestamp', 'event'],
        }),
      ),
    },
    required: ['events'],
  }),
};
