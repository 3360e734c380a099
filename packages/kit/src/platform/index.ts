// @hookwise/kit/platform: what a deliverer author needs (definePlatform and the pieces a platform description
// uses: HTTP, failures, error codes, targets, markdown, chunking, delivery keys), and nothing a source or an agent
// runner needs. Values are the ones first-party deliverers (or the new-plugin template) use; types are the ones
// those values' signatures name. Redaction, Retry-After, sleep and child processes are the root `@hookwise/kit`'s.
export {
  definePlatform,
  type OutgoingChunk,
  type PlatformCall,
  type PlatformContribution,
  type PlatformDefinition,
  type PlatformDeliverer,
  type PlatformDelivererOverrides,
  type PlatformReceipt,
  type PlatformResponse,
  type PlatformRuntime,
  type SentPart,
  type SuccessRule,
} from './define-platform';
export { platformOptionsSchema, type PlatformOptions, type PlatformSchemaInput } from './options-schema';
export { describeRequest, joinUrl, sendHttp, type HttpSendOptions } from './http';
export type { HttpMethod, HttpRequest, HttpResponse } from './http-exchange';
export {
  classifyHttpStatus,
  failureToError,
  type AlreadyDelivered,
  type FailureContext,
  type FailureKind,
  type PartialDelivery,
  type PlatformFailure,
  type ResponseVerdict,
} from './failure';
export { checkErrorCode, errorCodeOf, type ErrorCodeRules } from './error-code';
export { issuedTokenFrom } from './token-answer';
export type { IssuedToken } from './cached-token';
export { extraValue, pathSegment, type ResolvedTarget, type TargetContext, type TargetRules, type TargetSource } from './target';
export { markdownToHtml, markdownToMrkdwn, markdownToPlainText } from './markdown';
export { chunkText, type LengthUnit } from './chunk';
export { deliveryKey, idempotencyDigest } from './delivery-key';
export { renderChunkTemplate } from './chunk-template';
export { PROGRESS_TTL_MS, progressKey, type DeliveryProgress, type ProgressStore } from './progress';
export { VirtualClock, type Clock } from './pacing';
