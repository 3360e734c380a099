// @hookwise/kit/source: what a source plugin needs (signature checks, Standard Webhooks, public keys, Tencent's
// WXBizMsgCrypt callback scheme, defineSource), and nothing a deliverer or an agent runner needs.
export {
  MAX_SIGNATURE_ITEMS,
  anyConstantTimeEqual,
  constantTimeEqual,
  hmacDigest,
  hmacSha256Hex,
  matchingSecretIndex,
  missingHeader,
  parseSignatureList,
  signatureValues,
  timestampProblem,
  toleranceOption,
  verdictForSecrets,
  verifyHexHmac,
  type HmacAlgorithm,
} from './signature';
export {
  STANDARD_WEBHOOKS_HEADERS,
  STANDARD_WEBHOOKS_TOLERANCE_SECONDS,
  SVIX_HEADERS,
  standardWebhooksHeaders,
  standardWebhooksKeys,
  standardWebhooksSignature,
  v1Signatures,
  verifyStandardWebhook,
  type StandardWebhooksSecretEncoding,
  type StandardWebhooksVerifyOptions,
} from './standard-webhooks';
export { cachedPublicKeys, publicKeyMatch } from './public-key';
export { defineSource, sourceReader, type DefinedSource, type SourceDefinition, type SourceRead, type SourceStyle } from './define-source';
export { isPayloadObject, payloadId, payloadString, payloadText } from './payload-values';
export {
  openWxBizMsg,
  wxBizMsgDecrypt,
  wxBizMsgKeys,
  wxBizMsgQuery,
  wxBizMsgSignature,
  wxBizMsgXml,
  type WxBizMsgKeys,
  type WxBizMsgOpenOptions,
} from './wx-biz-msg-crypt';
export { field, listOf, openObject, type JsonType, type OpenObjectSchema } from './payload-schema';
