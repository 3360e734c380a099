// What Telegram posts to a bot's webhook: an Update (core.telegram.org/bots/api#update).
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

export const telegramPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Telegram Bot API Update: its id and at most one of its optional parts.',
    docs: 'https://core.telegram.org/bots/api#update',
    properties: {
      update_id: field('integer'),
      message: field('object'),
      edited_message: field('object'),
      channel_post: field('object'),
      edited_channel_post: field('object'),
      callback_query: field('object'),
      inline_query: field('object'),
      my_chat_member: field('object'),
      chat_member: field('object'),
    },
    required: ['update_id'],
  }),
};
