// The Standard Webhooks payload the source's tests post, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';

// The spec's example payload (standard-webhooks spec, "Signature scheme"), minified as senders post it.
export const BODY = '{"type":"contact.created","timestamp":"2022-11-03T20:26:10.344522Z","data":{"id":"1f81eb52-5198-4599-803e-771906343485"}}';

const samples: PayloadSample[] = [{ name: "the spec's example", event: 'contact.created', body: BODY }];
export default samples;
