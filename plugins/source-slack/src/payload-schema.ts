// What Slack posts: Events API callbacks (docs.slack.dev, "Events API"), interactivity payloads and slash commands.
// Per event type as the source names it: an event_callback by its inner event's type, block_actions by its own.
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, listOf, openObject } from '@hookwise/kit/source';

const EVENTS = 'https://docs.slack.dev/apis/events-api/';
const eventCallback = openObject({
  description: 'A Slack Events API event_callback: the outer event wrapping one event.',
  docs: `${EVENTS}#callback-field`,
  properties: {
    type: field('string', 'event_callback'),
    token: field('string'),
    team_id: field('string'),
    api_app_id: field('string'),
    event: field('object', 'The inner event (its type is the event type)'),
    event_id: field('string'),
    event_time: field('integer'),
    authorizations: listOf(field('object')),
  },
  required: ['type', 'event', 'event_id', 'event_time'],
});

export const slackPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Slack request: an Events API callback, an interactivity payload or a slash command.',
    docs: EVENTS,
    properties: {
      type: field('string', 'event_callback, block_actions, view_submission, ...'),
      team_id: field('string'),
      api_app_id: field('string'),
      event: field('object'),
      user: field(['object', 'string']),
      command: field('string', 'A slash command'),
      text: field('string'),
    },
  }),
  events: {
    message: eventCallback,
    app_mention: eventCallback,
    block_actions: openObject({
      description: 'A Slack block_actions interaction: a press of an interactive element.',
      docs: 'https://docs.slack.dev/reference/interaction-payloads/block_actions-payload',
      properties: {
        type: field('string'),
        user: field('object'),
        team: field(['object', 'null']),
        actions: listOf(field('object')),
        trigger_id: field('string'),
        response_url: field('string'),
        container: field('object'),
        channel: field('object'),
        message: field('object'),
      },
      required: ['type', 'user', 'actions'],
    }),
  },
};
