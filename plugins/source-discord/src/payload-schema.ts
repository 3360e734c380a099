// What Discord posts to an interactions endpoint: an Interaction (discord.com/developers, "Receiving and Responding").
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

export const discordPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Discord interaction: an application command, a component press, a modal submit, ...',
    docs: 'https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object',
    properties: {
      id: field('string'),
      application_id: field('string'),
      type: field('integer', '2 application command, 3 message component, 5 modal submit, ...'),
      data: field('object'),
      guild_id: field('string'),
      channel_id: field('string'),
      channel: field('object'),
      member: field('object', 'The member, in a guild'),
      user: field('object', 'The user, in a DM'),
      token: field('string'),
      version: field('integer'),
      message: field('object'),
      locale: field('string'),
    },
    required: ['id', 'type', 'token'],
  }),
};
