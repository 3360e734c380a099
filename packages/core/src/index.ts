// The contracts a plugin author programs against; nothing here runs a gateway (that is @hookwise/gateway).
export * from './contracts';
export * from './actions';
export * from './conversations';
export * from './agent-sandbox';
export * from './data-dir';
export * from './errors';
export * from './plugin';
export * from './options-schema';
// The renderer's limits and payload dump are details of the SPEC's templating rules, not API.
export { renderExtra, renderPrompt, renderTemplate, type TemplateVars, unresolvedPlaceholders } from './template';
export { closestMatch } from './did-you-mean';
export * from './headers';
export {
  CREDENTIAL_NAME,
  MIN_CREDENTIAL_VALUE,
  MIN_SECRET_LENGTH,
  REDACTED,
  SecretScrubber,
  THOROUGH_FROM_LENGTH,
  ThoroughScrubber,
  credentialValues,
  secretForms,
  thoroughForms,
  urlSecrets,
} from './redaction';
export * from './stores/types';
export * from './stores/side-spaces';
