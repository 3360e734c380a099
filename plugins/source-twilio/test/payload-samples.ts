// Documented Twilio payloads the source's tests use, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';
import { INBOUND_SMS } from './fixtures/incoming-sms';

const samples: PayloadSample[] = [
  {
    name: 'incoming SMS (form)',
    event: 'message.received',
    body: new URLSearchParams(INBOUND_SMS).toString(),
    contentType: 'application/x-www-form-urlencoded',
  },
];
export default samples;
