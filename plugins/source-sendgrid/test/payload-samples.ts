// Documented SendGrid event batches the source's tests post, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';

// Two "delivered" events in the shape of https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/event,
// ids filled in.
export const batchOf = (ids: string[]) =>
  `[${ids
    .map(
      (id, n) =>
        `{"email":"example${n}@test.com","timestamp":1513299569,"smtp-id":"<14c5d75ce93.dfd.64b469@ismtpd-555>","event":"delivered","category":"cat facts","sg_event_id":"${id}","sg_message_id":"14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.${n}","response":"250 OK"}`,
    )
    .join(',')}]`;

const samples: PayloadSample[] = [
  { name: 'two delivered events', event: 'delivered', body: batchOf(['rbtnWrG1DVDGGGFHFyun0A==', 'sZROwMGMagFgnOEmSdvhig==']) },
];
export default samples;
