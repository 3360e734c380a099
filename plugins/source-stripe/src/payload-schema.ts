// What Stripe posts: an Event object (docs.stripe.com/api/events/object).
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

export const stripePayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Stripe Event object; data.object is the API resource the event is about.',
    docs: 'https://docs.stripe.com/api/events/object',
    properties: {
      id: field('string', 'The event id (evt_...)'),
      object: field('string', '"event"'),
      type: field('string', 'The event type, e.g. invoice.paid'),
      api_version: field(['string', 'null']),
      created: field('integer', 'Seconds since the epoch'),
      data: field('object', 'object: the resource; previous_attributes: what an update changed'),
      livemode: field('boolean'),
      pending_webhooks: field('integer'),
      request: field(['object', 'null'], 'The API request that caused the event (id, idempotency_key)'),
      account: field('string', 'The connected account, for Connect events'),
    },
    required: ['id', 'object', 'type', 'created'],
  }),
};
