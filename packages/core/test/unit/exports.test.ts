// Pins @hookwise/core's public API (docs/architecture.md lists it): adding or removing a name is a decision that
// changes this list, not an accident of `export *`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as core from '@hookwise/core';

const SRC = join(__dirname, '..', '..', 'src');

const RUNTIME = [
  'COALESCE_MAX_EVENTS',
  'CREDENTIAL_NAME',
  'DEFAULT_JOBS_RETENTION_DAYS',
  'DELIVERY_ID_TTL_MS',
  'DOCS_BASE',
  'ERROR_CATALOGUE',
  'HookwiseConfigError',
  'HookwiseError',
  'MIN_CREDENTIAL_VALUE',
  'MIN_SECRET_LENGTH',
  'PLUGIN_API_VERSION',
  'PLUGIN_MARKER',
  'RATE_WINDOW_MS',
  'REDACTED',
  'SecretScrubber',
  'THOROUGH_FROM_LENGTH',
  'ThoroughScrubber',
  'approvalButtonData',
  'approvalOfButtonData',
  'closestMatch',
  'credentialValues',
  'definePlugin',
  'describeError',
  'errorMessage',
  'firstHeaderValue',
  'gatewayDataDir',
  'headerText',
  'headerValue',
  'isHookwiseConfigError',
  'isHookwiseError',
  'isHookwisePlugin',
  'isRetryable',
  'renderExtra',
  'renderPrompt',
  'renderTemplate',
  'secretForms',
  'thoroughForms',
  'unresolvedPlaceholders',
  'urlSecrets',
  'wrapPluginError',
];

const TYPE_ONLY = [
  'AcceptOutcome',
  'AcceptRequest',
  'ActionCheck',
  'ActionContext',
  'ActionOptions',
  'AgentContribution',
  'AgentConversation',
  'AgentProgramCheck',
  'AgentResult',
  'AgentRunLimits',
  'AgentRunSandbox',
  'AgentRunner',
  'AgentSandbox',
  'AgentSandboxMode',
  'AgentSandboxNeeds',
  'AgentSpawnPlan',
  'AgentTask',
  'AgentTranscript',
  'AgentTranscriptMessage',
  'AgentUsage',
  'ApprovalDraft',
  'ApprovalPress',
  'CoalescedEvents',
  'Contribution',
  'ContributionKind',
  'DeliverOptions',
  'Deliverer',
  'DelivererAction',
  'DelivererApproval',
  'DelivererContribution',
  'DelivererConversation',
  'DeliveryIdCache',
  'DeliveryMessage',
  'DestinationState',
  'EnqueueHints',
  'ErrorCode',
  'HandshakeAnswer',
  'HeaderMap',
  'HookwiseErrorOptions',
  'HookwisePlugin',
  'InboundReply',
  'InboundSender',
  'Job',
  'JobError',
  'JobFilter',
  'JobInput',
  'JobOutcome',
  'JobQueue',
  'JobRoute',
  'JobStatus',
  'JobStep',
  'JobSummary',
  'MemoKV',
  'MessageRef',
  'OptionsSchema',
  'Outbox',
  'OutboxMessage',
  'PluginContext',
  'PluginDefinition',
  'PluginLogger',
  'PluginMeta',
  'PluginPackageJson',
  'ProgressKV',
  'RateLimiter',
  'RateWindow',
  'Receipt',
  'RouteBudget',
  'RouteDestination',
  'Skill',
  'Source',
  'SourceContribution',
  'SourcePayloadSchema',
  'SourceRequest',
  'SourceVerdict',
  'Store',
  'StoreConfig',
  'StoreContribution',
  'StoreHealth',
  'TemplateVars',
  'WindowCounters',
];

/**
 * Every name src/index.ts makes public, types included: the names it re-exports explicitly, and for
 * `export * from './x'` every top-level `export` declaration of x.ts (core's modules declare their exports inline).
 */
function publicNames(): string[] {
  const index = readFileSync(join(SRC, 'index.ts'), 'utf8');
  const names = new Set<string>();
  for (const [, list] of index.matchAll(/^export (?:type )?\{([^}]*)\} from '[^']+';$/gm)) {
    for (const item of list.split(','))
      names.add(
        item
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)
          .pop()!,
      );
  }
  for (const [, module] of index.matchAll(/^export \* from '\.\/([^']+)';$/gm)) {
    const text = readFileSync(join(SRC, `${module}.ts`), 'utf8');
    for (const [, name] of text.matchAll(/^export (?:declare )?(?:abstract )?(?:interface|type|class|function|const|let|enum) (\w+)/gm)) names.add(name);
  }
  names.delete('');
  return [...names].sort();
}

describe('@hookwise/core public API', () => {
  it('exports exactly these values at run time', () => {
    expect(Object.keys(core).sort()).toEqual(RUNTIME);
  });

  it('exports exactly these types besides', () => {
    expect(publicNames().filter((name) => !RUNTIME.includes(name))).toEqual(TYPE_ONLY);
    expect(publicNames().filter((name) => RUNTIME.includes(name))).toEqual(RUNTIME);
  });

  it('lists every public name in docs/architecture.md', () => {
    const doc = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'architecture.md'), 'utf8');
    const missing = [...RUNTIME, ...TYPE_ONLY].filter((name) => !doc.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});
