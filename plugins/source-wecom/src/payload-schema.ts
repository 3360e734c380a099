// What WeCom posts to an app's callback URL, once decrypted: the XML message's elements, as strings
// (developer.work.weixin.qq.com, "Receiving messages").
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

const text = (description?: string) => field('string', description);

export const wecomPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: "A WeCom (WeChat Work) app message or event: the decrypted XML's elements as text.",
    docs: 'https://developer.work.weixin.qq.com/document/path/90239',
    properties: {
      ToUserName: text('The CorpID'),
      FromUserName: text('The sender UserID'),
      CreateTime: text('Seconds since the epoch'),
      MsgType: text('text, image, event, ...'),
      Content: text(),
      MsgId: text(),
      AgentID: text(),
      Event: text('For MsgType event'),
      EventKey: text(),
    },
    required: ['ToUserName', 'FromUserName', 'CreateTime', 'MsgType'],
  }),
};
