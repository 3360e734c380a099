// What Zoom posts (developers.zoom.us, "Using webhooks": the event notification).
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

export const zoomPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Zoom webhook event notification.',
    docs: 'https://developers.zoom.us/docs/api/webhooks/',
    properties: {
      event: field('string', 'e.g. meeting.started'),
      event_ts: field('integer', 'Milliseconds since the epoch'),
      payload: field('object', 'account_id and the object the event is about'),
    },
    required: ['event', 'payload'],
  }),
};
