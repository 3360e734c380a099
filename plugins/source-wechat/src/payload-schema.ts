// What WeChat posts to an Official Account's server: the XML message's elements, as strings, decrypted in safe mode
// (developers.weixin.qq.com, "Receiving standard messages" and "Receiving event pushes").
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

const text = (description?: string) => field('string', description);

export const wechatPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: "A WeChat Official Account message or event push: the XML's elements as text.",
    docs: 'https://developers.weixin.qq.com/doc/offiaccount/Message_Management/Receiving_standard_messages.html',
    properties: {
      ToUserName: text('The Official Account'),
      FromUserName: text("The sender's OpenID"),
      CreateTime: text('Seconds since the epoch'),
      MsgType: text('text, image, voice, event, ...'),
      Content: text(),
      MsgId: text(),
      Event: text('For MsgType event: subscribe, CLICK, ...'),
      EventKey: text(),
    },
    required: ['ToUserName', 'FromUserName', 'CreateTime', 'MsgType'],
  }),
};
