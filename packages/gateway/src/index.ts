// @hookwise/gateway's public API, name by name (a test pins it): what the hosts (@hookwise/cli, @hookwise/server),
// the testing kit, the examples, the bench and embedding programs use. A name used only inside the package is not
// exported; a new one is added here on purpose. The composition root (openGateway), pipeline, worker pool, plugin
// loader and registry, config, routes, subscriptions, the memory store and the store backend selection.
export { eventAccepted } from './ingest/events';
export {
  budgetOf,
  DELIVER_NONE,
  invalidRouteNameMessage,
  isValidRouteName,
  type Route,
  routeDefaults,
  type RouteDefaults,
  type RouteSource,
  staticRoutes,
  toRoute,
} from './routes/routes';
export { createLogger, type LogFormat, type LoggerOptions, Redactor } from './observe/logger';
export { candidateNames, findPackageDir, type LoadedPlugin, loadPlugins, type LoadPluginsOptions } from './plugins/loader';
export { type CreateContext, PluginRegistry } from './plugins/registry';
export { BUILTIN_SKILLS_DIR, DirectorySkillLibrary, type SkillLibrary } from './plugins/skills';
export { WebhookPipeline } from './ingest/pipeline';
export type { IngestRequest, IngestResult } from './ingest/pipeline-contract';
export { createIngestListener, type WebhookHandler } from './ingest/node-handler';
export { routeFromUrl } from './ingest/request-path';
export { createGateway, Gateway } from './gateway';
export type { GatewayOptions } from './gateway-options';
export { createMemoryStore, MemoryDeliveryIdCache } from './stores/memory';
export { listJobSummaries } from './stores/job-summaries';
export { SequentialAcceptor } from './stores/accept';
export {
  type BudgetConfig,
  type CoalesceConfig,
  DEFAULT_PORT,
  type DeliverConfig,
  type DeliverEntry,
  type FilterCondition,
  type FilterConfig,
  type FilterTest,
  type HookwiseConfig,
  INSECURE_NO_AUTH,
  type PlatformConfig,
  type PluginSpec,
  type RouteConfig,
  type WebhookAdapterConfig,
} from './config/schema';
export { parseDotenv } from './config/env';
export { loadConfig, type LoadConfigOptions, type LoadedConfig, readDotenv, resolveConfigDir, validateConfigObject } from './config/load';
export { checkProfile, DEFAULT_PROFILE, listProfiles, misnamedProfileDirs, profileDir } from './config/profiles';
export { createSubscriptionSource, readSubscriptions, type SubscriptionEntries, type SubscriptionEntry, subscriptionProblems } from './routes/subscriptions';
export { updateSubscriptions } from './routes/subscription-store';
export { openConfiguredStore, type OpenedGateway, type OpenedStore, openGateway, type OpenGatewayOptions, skillDirs } from './open-gateway';
export { readRunFile, removeRunFile, type RunFile, runFilePath, writeRunFile } from './config/run-file';
export { dotenvModeProblem } from './config/dotenv-mode';
export { exposureFindings, type ExposureFinding, type TargetPolicy } from './config/exposure-checks';
export { LIFECYCLE_EVENTS, type LifecycleEventName, type LifecycleEvents, type LifecycleListener } from './observe/lifecycle';
export type { ActivityJournal, JobActivity, MinuteCounts, RequestActivity } from './observe/activity-journal';
export { RouteLabels, hostedMetricsText } from './observe/metrics';
export type { ScheduleClock } from './schedules/scheduler';
export type { TickResult } from './schedules/tick-claim';
export { derivedJobContext, parseTraceparent } from './observe/tracing';
export { adminApiEnabled, type GatewayObservability } from './observe/observability';
export { EXPRESSION_DEADLINE_MS, expressionWorkersStarted } from './filters/expression-pool';
export { findJob, replayJob, retryDeadLetters } from './jobs/delivery-actions';
export { ALL_ROUTES, routeUsage, type RouteUsage, RUNS_WINDOW_MS, runsKey, TOKENS_WINDOW_MS, tokensKey, tokensOf, windowEnd } from './jobs/budget';
export { coalescedText, eventCount, jobOutcome, outcomeText, sandboxText, SILENT_TEXT, tokenCount, usageText, waitingNote } from './jobs/job-facts';
export { conversationLines, conversationOfJob, turnLabel, type ConversationView } from './conversations/conversation-view';
export { ConversationRecords } from './conversations/conversation-records';
export { isConversationReplyJob } from './conversations/conversations';
export {
  againstLimit,
  DEFAULT_USAGE_PERIOD,
  parseSince,
  type RouteUsageRow,
  storedJobsSince,
  USAGE_SCAN_LIMIT,
  usageReport,
  type UsageReport,
} from './jobs/usage-report';
// Trial runs of a changed route (`hookwise routes try`): the worker's own agent step, answer scrubbing, filter and
// silent check, so that a trial renders, sandboxes, runs and judges an event exactly as a real run does.
export { AgentStep } from './jobs/agent-step';
export { OUTBOUND_EXITS, OutboundScrubber, type OutboundExit } from './observe/outbound-scrub';
export { silentAnswer } from './jobs/silent-answer';
export { compileFilter } from './filters/filters';
export { requestViewOf } from './filters/filter-tests';
export { encodeCursor, type EventPosition } from './mcp-events/event-cursor';
export type { McpEvents } from './mcp-events/mcp-events';
export type { McpClient } from './mcp-events/mcp-clients';
export type { ListedMcpClient, ListedMcpSubscription } from './mcp-events/mcp-listings';
