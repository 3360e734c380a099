// Documented WeCom messages the source's tests use, checked against its payload schema (src/payload-schema.ts): the
// payload is the decrypted XML's elements, read here from the plaintext the tests encrypt.
import type { PayloadSample } from '@hookwise/testing';
import { wxBizMsgXml } from '@hookwise/kit/source';
import { CLICK_EVENT, TEXT_MESSAGE } from './fixtures/wecom-docs';

const samples: PayloadSample[] = [
  { name: 'text message', event: 'text', payload: wxBizMsgXml(TEXT_MESSAGE) },
  { name: 'menu click event', payload: wxBizMsgXml(CLICK_EVENT) },
];
export default samples;
