// Documented DingTalk payloads the source's tests use, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';
import { GROUP_TEXT } from './fixtures/dingtalk-docs';

const samples: PayloadSample[] = [{ name: 'a text message in a group', event: 'text', payload: GROUP_TEXT }];
export default samples;
