// Documented Feishu payloads the source's tests use, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';
import { MESSAGE_RECEIVE } from './fixtures/feishu-docs';

const samples: PayloadSample[] = [{ name: 'im.message.receive_v1', event: 'im.message.receive_v1', payload: MESSAGE_RECEIVE }];
export default samples;
