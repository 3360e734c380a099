// What Twilio posts: form parameters (twilio.com/docs/messaging/guides/webhook-request); the source stores each field
// as a string, a repeated field as the list of its values (or, with a bodySHA256 URL, the JSON it signed).
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

/** A form value: a string, or the list of values of a repeated field. */
const text = (description?: string) => field(['string', 'array'], description);

export const twilioPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Twilio webhook request: its form parameters (an incoming message, a status callback, a call).',
    docs: 'https://www.twilio.com/docs/messaging/guides/webhook-request',
    properties: {
      AccountSid: text('The account (AC...)'),
      MessageSid: text(),
      SmsSid: text(),
      MessagingServiceSid: text(),
      From: text(),
      To: text(),
      Body: text('The text of the message'),
      NumMedia: text(),
      NumSegments: text(),
      SmsStatus: text(),
      MessageStatus: text(),
      ApiVersion: text(),
      CallSid: text(),
      CallStatus: text(),
    },
    required: ['AccountSid'],
  }),
};
