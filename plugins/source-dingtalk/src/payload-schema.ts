// What DingTalk posts to a robot's message receiving URL (open.dingtalk.com, "Receive messages").
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

export const dingtalkPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A DingTalk robot message: a message in a group or a one-to-one chat with the robot.',
    docs: 'https://open.dingtalk.com/document/orgapp/receive-message',
    properties: {
      msgtype: field('string', 'text, richText, picture, ...'),
      text: field('object', 'content, for a text message'),
      msgId: field('string'),
      createAt: field('integer'),
      conversationType: field('string', '1 one-to-one, 2 group'),
      conversationId: field('string'),
      conversationTitle: field('string'),
      senderId: field('string'),
      senderNick: field('string'),
      senderCorpId: field('string'),
      senderStaffId: field('string'),
      chatbotUserId: field('string'),
      atUsers: field('array'),
      isAdmin: field('boolean'),
      isInAtList: field('boolean'),
      sessionWebhook: field('string'),
      sessionWebhookExpiredTime: field('integer'),
      robotCode: field('string'),
    },
    required: ['msgtype'],
  }),
};
