// Documented WeChat payloads the source's tests use, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';
import { SUBSCRIBE_EVENT, TEXT_MESSAGE } from './fixtures/wechat-docs';

const samples: PayloadSample[] = [
  { name: 'text message (plaintext mode)', event: 'text', body: TEXT_MESSAGE, contentType: 'text/xml' },
  { name: 'subscribe event (plaintext mode)', body: SUBSCRIBE_EVENT, contentType: 'text/xml' },
];
export default samples;
