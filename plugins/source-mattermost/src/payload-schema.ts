// What a Mattermost outgoing webhook posts (developers.mattermost.com, "Outgoing webhooks"): JSON or a form, whose
// values are all strings. The source keeps the token (the route's secret) out of the payload.
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

export const mattermostPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Mattermost outgoing webhook request: the post that triggered it (without its token).',
    docs: 'https://developers.mattermost.com/integrate/webhooks/outgoing/',
    properties: {
      team_id: field('string'),
      team_domain: field('string'),
      channel_id: field('string'),
      channel_name: field('string'),
      timestamp: field(['integer', 'string'], 'Milliseconds since the epoch (a string in a form)'),
      user_id: field('string'),
      user_name: field('string'),
      post_id: field('string'),
      text: field('string'),
      trigger_word: field('string'),
      file_ids: field('string'),
    },
    required: ['text'],
  }),
};
