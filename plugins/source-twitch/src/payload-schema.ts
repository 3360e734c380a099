// What Twitch EventSub posts to a webhook (dev.twitch.tv, "Handling webhook events").
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

export const twitchPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Twitch EventSub webhook message: a notification (subscription and event) or a revocation.',
    docs: 'https://dev.twitch.tv/docs/eventsub/handling-webhook-events/',
    properties: {
      subscription: field('object', 'id, status, type, version, condition, transport, created_at'),
      event: field('object', "The notification's event data, as the subscription type defines it"),
      challenge: field('string'),
    },
    required: ['subscription'],
  }),
};
