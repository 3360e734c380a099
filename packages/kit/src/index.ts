// @hookwise/kit: what every plugin author may need whatever the plugin's kind (redaction, Retry-After, abortable
// sleep, child processes). Source authors import `@hookwise/kit/source`, deliverer authors `@hookwise/kit/platform`,
// agent-runner authors `@hookwise/agent-kit` (the only one that brings the MCP SDK).
export { SecretScrubber, urlSecrets } from '@hookwise/core';
export { retryAfterFromHeaders } from './common/retry-after';
export { sleep } from './common/sleep';
export { BoundedCapture, LineSplitter } from './common/bounded-output';
export {
  MAX_ARG_BYTES,
  ProcessInputError,
  childEnvironment,
  isSecretName,
  runProcess,
  type ChildEnvironmentOptions,
  type ProcessResult,
  type RunProcessOptions,
} from './common/process';
