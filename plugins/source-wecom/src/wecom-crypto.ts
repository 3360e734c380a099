// WeCom's callback cryptography ("加解密方案说明") is Tencent's WXBizMsgCrypt scheme, which WeChat Official Accounts
// use too: its one implementation is @hookwise/kit/source's. The names this package has always exported stay, as
// aliases of it.
export {
  wxBizMsgDecrypt as wecomDecrypt,
  wxBizMsgKeys as wecomKeys,
  wxBizMsgQuery as queryParams,
  wxBizMsgXml as parseWeComXml,
  type WxBizMsgKeys as WeComKeys,
} from '@hookwise/kit/source';
import { wxBizMsgSignature } from '@hookwise/kit/source';

/** msg_signature: hex sha1 of Token, timestamp, nonce and the ciphertext, sorted and joined. */
export function wecomSignature(token: string, timestamp: string, nonce: string, encrypted: string): string {
  return wxBizMsgSignature(token, timestamp, nonce, encrypted);
}
