// What a Standard Webhooks sender posts: the payload structure the specification recommends (type, timestamp, data),
// which it does not require (github.com/standard-webhooks/standard-webhooks, spec "Payload structure").
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

export const standardWebhooksPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Standard Webhooks payload; the specification recommends type, timestamp and data.',
    docs: 'https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md',
    properties: {
      type: field('string', 'Full-stop delimited event type, e.g. contact.created'),
      timestamp: field('string', 'ISO 8601 time of the event'),
      data: field('object'),
    },
  }),
};
