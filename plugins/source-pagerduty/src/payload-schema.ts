// What PagerDuty posts: a V3 webhook (developer.pagerduty.com, "Webhooks overview", the event payload).
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

export const pagerDutyPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A PagerDuty V3 webhook payload: one event.',
    docs: 'https://developer.pagerduty.com/docs/webhooks-overview',
    properties: {
      event: openObject({
        description: 'The PagerDuty event',
        docs: 'https://developer.pagerduty.com/docs/webhooks-overview#webhook-payload',
        properties: {
          id: field('string'),
          event_type: field('string', 'e.g. incident.triggered'),
          resource_type: field('string', 'e.g. incident'),
          occurred_at: field('string'),
          agent: field(['object', 'null'], 'Who caused it'),
          client: field(['object', 'null']),
          data: field('object', 'The resource'),
        },
        required: ['id', 'event_type', 'resource_type', 'occurred_at', 'data'],
      }),
    },
    required: ['event'],
  }),
};
