// Documented BlueBubbles payloads the source's tests use, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';
import { NEW_MESSAGE_PLAIN, NEW_MESSAGE_REPLY, UPDATED_MESSAGE } from './fixtures/bluebubbles-server';

const samples: PayloadSample[] = [
  { name: 'new-message (a reply)', event: 'new-message', payload: NEW_MESSAGE_REPLY },
  { name: 'new-message', event: 'new-message', payload: NEW_MESSAGE_PLAIN },
  { name: 'updated-message', event: 'updated-message', payload: UPDATED_MESSAGE },
];
export default samples;
