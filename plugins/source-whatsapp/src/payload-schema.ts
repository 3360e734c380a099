// What the WhatsApp Cloud API posts (developers.facebook.com, WhatsApp "Webhooks payload examples").
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, listOf, openObject } from '@hookwise/kit/source';

export const whatsappPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A WhatsApp Cloud API webhook: entries of changes (messages, statuses) of business accounts.',
    docs: 'https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples',
    properties: {
      object: field('string', 'whatsapp_business_account'),
      entry: listOf(field('object'), 'id and changes: [{field, value}]'),
    },
    required: ['object', 'entry'],
  }),
};
