// What Feishu / Lark posts to an event subscription (open.feishu.cn, "Event subscription"): the 2.0 schema's header
// and event, or a 1.0 event's fields; decrypted when the app has an Encrypt Key.
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

const DOCS = 'https://open.feishu.cn/document/server-docs/event-subscription-guide/event-subscription-configure-/request-url-configuration-case';
const header = field('object', 'event_id, event_type, create_time, token, app_id, tenant_key');

export const feishuPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Feishu (Lark) event: schema 2.0 (header and event) or 1.0 (uuid, token, ts, type, event).',
    docs: DOCS,
    properties: {
      schema: field('string', '2.0'),
      header,
      event: field('object'),
      uuid: field('string'),
      token: field('string'),
      ts: field('string'),
      type: field('string'),
    },
  }),
  events: {
    'im.message.receive_v1': openObject({
      description: 'A Feishu im.message.receive_v1 event: a message the bot received.',
      docs: 'https://open.feishu.cn/document/server-docs/im-v1/message/events/receive',
      properties: { schema: field('string'), header, event: field('object', 'sender and message') },
      required: ['schema', 'header', 'event'],
    }),
  },
};
