// Pins @hookwise/gateway's public API: adding or removing a name is a decision that changes this list, not an
// accident of `export *`. The runtime names are what the hosts (the CLI, the server), the testing kit, the examples,
// the bench and the plugins' tests use; at most 96 of them (90 before profiles), so that the library stays a library and does not turn
// back into the hosts' internal API.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as gateway from '@hookwise/gateway';

const INDEX = join(__dirname, '..', '..', 'src', 'index.ts');
const MAX_RUNTIME_NAMES = 96;

const RUNTIME = [
  'ALL_ROUTES',
  'AgentStep',
  'BUILTIN_SKILLS_DIR',
  'ConversationRecords',
  'DEFAULT_PORT',
  'DEFAULT_PROFILE',
  'DEFAULT_USAGE_PERIOD',
  'DELIVER_NONE',
  'DirectorySkillLibrary',
  'EXPRESSION_DEADLINE_MS',
  'Gateway',
  'INSECURE_NO_AUTH',
  'LIFECYCLE_EVENTS',
  'MemoryDeliveryIdCache',
  'OUTBOUND_EXITS',
  'OutboundScrubber',
  'PluginRegistry',
  'RUNS_WINDOW_MS',
  'Redactor',
  'RouteLabels',
  'SILENT_TEXT',
  'SequentialAcceptor',
  'TOKENS_WINDOW_MS',
  'USAGE_SCAN_LIMIT',
  'WebhookPipeline',
  'adminApiEnabled',
  'againstLimit',
  'budgetOf',
  'candidateNames',
  'checkProfile',
  'coalescedText',
  'compileFilter',
  'conversationLines',
  'conversationOfJob',
  'createGateway',
  'createIngestListener',
  'createLogger',
  'createMemoryStore',
  'createSubscriptionSource',
  'derivedJobContext',
  'dotenvModeProblem',
  'encodeCursor',
  'eventAccepted',
  'eventCount',
  'exposureFindings',
  'expressionWorkersStarted',
  'findJob',
  'findPackageDir',
  'hostedMetricsText',
  'invalidRouteNameMessage',
  'isConversationReplyJob',
  'isValidRouteName',
  'jobOutcome',
  'listJobSummaries',
  'listProfiles',
  'loadConfig',
  'loadPlugins',
  'misnamedProfileDirs',
  'openConfiguredStore',
  'openGateway',
  'outcomeText',
  'parseDotenv',
  'parseSince',
  'parseTraceparent',
  'profileDir',
  'readDotenv',
  'readRunFile',
  'readSubscriptions',
  'removeRunFile',
  'replayJob',
  'requestViewOf',
  'resolveConfigDir',
  'retryDeadLetters',
  'routeDefaults',
  'routeFromUrl',
  'routeUsage',
  'runFilePath',
  'runsKey',
  'sandboxText',
  'silentAnswer',
  'skillDirs',
  'staticRoutes',
  'storedJobsSince',
  'subscriptionProblems',
  'toRoute',
  'tokenCount',
  'tokensKey',
  'tokensOf',
  'turnLabel',
  'updateSubscriptions',
  'usageReport',
  'usageText',
  'validateConfigObject',
  'waitingNote',
  'windowEnd',
  'writeRunFile',
];

const TYPE_ONLY = [
  'ActivityJournal',
  'BudgetConfig',
  'CoalesceConfig',
  'ConversationView',
  'CreateContext',
  'DeliverConfig',
  'DeliverEntry',
  'EventPosition',
  'ExposureFinding',
  'FilterCondition',
  'FilterConfig',
  'FilterTest',
  'GatewayObservability',
  'GatewayOptions',
  'HookwiseConfig',
  'IngestRequest',
  'IngestResult',
  'JobActivity',
  'LifecycleEventName',
  'LifecycleEvents',
  'LifecycleListener',
  'ListedMcpClient',
  'ListedMcpSubscription',
  'LoadConfigOptions',
  'LoadPluginsOptions',
  'LoadedConfig',
  'LoadedPlugin',
  'LogFormat',
  'LoggerOptions',
  'McpClient',
  'McpEvents',
  'MinuteCounts',
  'OpenGatewayOptions',
  'OpenedGateway',
  'OpenedStore',
  'OutboundExit',
  'PlatformConfig',
  'PluginSpec',
  'RequestActivity',
  'Route',
  'RouteConfig',
  'RouteDefaults',
  'RouteSource',
  'RouteUsage',
  'RouteUsageRow',
  'RunFile',
  'ScheduleClock',
  'SkillLibrary',
  'SubscriptionEntries',
  'SubscriptionEntry',
  'TargetPolicy',
  'TickResult',
  'UsageReport',
  'WebhookAdapterConfig',
  'WebhookHandler',
];

/** Every name src/index.ts exports: it lists them one by one (`export { a, type B } from './x'`), never `export *`. */
function publicNames(): { runtime: string[]; types: string[] } {
  const index = readFileSync(INDEX, 'utf8');
  const runtime: string[] = [];
  const types: string[] = [];
  for (const [, typeOnly, list] of index.matchAll(/^export (type )?\{([^}]*)\} from '[^']+';$/gm)) {
    for (const item of list.split(',').map((name) => name.trim())) {
      if (!item) continue;
      if (typeOnly || item.startsWith('type ')) types.push(item.replace(/^type\s+/, ''));
      else runtime.push(item);
    }
  }
  return { runtime: runtime.sort(), types: types.sort() };
}

describe('@hookwise/gateway public API', () => {
  it('has no export * (every public name is chosen)', () => {
    expect(readFileSync(INDEX, 'utf8')).not.toMatch(/^export \*/m);
  });

  it(`exports exactly these values at run time, no more than ${MAX_RUNTIME_NAMES}`, () => {
    expect(Object.keys(gateway).sort()).toEqual(RUNTIME);
    expect(RUNTIME.length).toBeLessThanOrEqual(MAX_RUNTIME_NAMES);
  });

  it('exports exactly these types besides', () => {
    const { runtime, types } = publicNames();
    expect(runtime).toEqual(RUNTIME);
    expect(types).toEqual(TYPE_ONLY);
  });
});
