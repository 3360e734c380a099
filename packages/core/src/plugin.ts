// The plugin contract: a plugin package default-exports definePlugin({ meta, contributes }).
import type { DelivererAction } from './actions';
import type { AgentRunner, Deliverer, Source } from './contracts';
import type { Store, StoreConfig } from './stores/types';
import type { MemoKV, ProgressKV } from './stores/side-spaces';
import type { OptionsSchema } from './options-schema';

/** The plugin API this core provides; a plugin written for another one is refused. */
export const PLUGIN_API_VERSION = 2;
export const PLUGIN_MARKER = Symbol.for('hookwise.plugin');

/** The logger a plugin gets: the gateway's (winston) logger, tagged with { plugin, id }. */
export interface PluginLogger {
  error(message: string, meta?: Record<string, unknown>): unknown;
  warn(message: string, meta?: Record<string, unknown>): unknown;
  info(message: string, meta?: Record<string, unknown>): unknown;
  debug(message: string, meta?: Record<string, unknown>): unknown;
  child(meta: Record<string, unknown>): PluginLogger;
}

export interface PluginContext {
  logger: PluginLogger;
  configDir: string;
  env: NodeJS.ProcessEnv;
  /** Aborted when the gateway shuts down. */
  signal: AbortSignal;
  /** Registers a secret (token, password) so that it is scrubbed from every log line. */
  redact(secret: string | undefined): void;
  /**
   * Whether `value` is one of the gateway's secrets (route and global secrets, registered credentials); a plugin
   * that starts child processes keeps such environment variables from them. Absent in older gateways.
   */
  isSecret?(value: string): boolean;
  /**
   * `text` with every registered secret replaced, in every encoding the redactor knows (in the gateway: its
   * outbound scrubber, which also knows its environment's credential-named variables): for text an agent wrote that
   * leaves the gateway (a tool's output on its way to a model, an agent's stderr lines on their way to the log).
   * Absent in older gateways.
   */
  scrub?(text: string): string;
  /**
   * Delivery progress kept in the gateway's store (survives restarts with SQLite and Redis): deliverers key it
   * by route + delivery id + destination and keep there what a retry must not send again. Absent in older gateways.
   */
  progress?: ProgressKV;
  /**
   * Memory across jobs kept in the gateway's store (durable with SQLite, shared by gateways on Redis): e.g. the
   * comment a later answer edits. Keys are shared by every plugin: start them with your contribution's id.
   * Absent in older gateways.
   */
  memos?: MemoKV;
}

interface ContributionBase<K extends string, T, O> {
  kind: K;
  /** The real name users write (`github`, `telegram`, `sqlite`). */
  id: string;
  /** Other names that mean the same contribution everywhere (config, subscriptions, CLI), e.g. the SPEC's `platform_01`. */
  aliases?: string[];
  description?: string;
  optionsSchema?: OptionsSchema;
  create(options: O, ctx: PluginContext): T | Promise<T>;
}

/**
 * What a source stores as a job's payload, as JSON Schema (draft 2020-12, the MCP default dialect): `envelope`
 * holds for every payload of the source, `events` (optional) for the payloads of one event type as the source
 * names it (the names a route's `events:` lists). MCP Events answers them as its event types' `payloadSchema`.
 * Schemas stay open (`additionalProperties: true`) and require only what the sender always sends.
 */
export interface SourcePayloadSchema {
  envelope: Record<string, unknown>;
  events?: Readonly<Record<string, Record<string, unknown>>>;
}

/** A sender's webhook style; options come from a route's (or the global) `source_options`. */
export interface SourceContribution<O = Record<string, unknown>> extends ContributionBase<'source', Source, O> {
  /**
   * What its payloads hold. On the contribution, not on Source: like `optionsSchema` it is what the sender
   * documents, the same whatever the route's options, and the gateway reads it from its registry by the route's
   * `source:` without creating the source (events/list answers synchronously).
   */
  payloadSchema?: SourcePayloadSchema;
}
/** A store backend, chosen by `store.backend`; its options are the `store:` block. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type StoreContribution<O extends StoreConfig = any> = ContributionBase<'store', Store, O>;
export interface DelivererContribution<O = Record<string, unknown>, D extends Deliverer = Deliverer> extends ContributionBase<'deliverer', D, O> {
  /**
   * A platform deliverer must be switched on with `platforms.<id>.enabled: true`; a route that delivers
   * to it while it is off is refused at startup.
   */
  requiresEnabled?: boolean;
  /**
   * Route actions this deliverer performs for an agent during its run (`github.comment`), with the credentials of
   * its `platforms.<id>` block: a route allows one by naming it under `actions:`.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  actions?: Array<DelivererAction<any, D>>;
}
export type AgentContribution<O = Record<string, unknown>> = ContributionBase<'agent', AgentRunner, O>;

// Options are `any` here: each contribution's create() takes its own options type, checked by its schema at run time.
/* eslint-disable @typescript-eslint/no-explicit-any */
export type Contribution = SourceContribution<any> | DelivererContribution<any> | AgentContribution<any> | StoreContribution<any>;
/* eslint-enable @typescript-eslint/no-explicit-any */
export type ContributionKind = Contribution['kind'];

export interface PluginMeta {
  name: string;
  version: string;
  /** Integer contract version this plugin was written for. */
  api: number;
}

export interface HookwisePlugin {
  readonly [PLUGIN_MARKER]: true;
  meta: PluginMeta;
  contributes: Contribution[];
}

/** The fields of a plugin's package.json that name it: the one place its name, version and API live. */
export interface PluginPackageJson {
  name: string;
  version: string;
  /** The static manifest (`hookwise.api`, `hookwise.contributes`), read without running the plugin's code. */
  hookwise?: { api?: number };
}

export type PluginDefinition =
  | { meta: PluginMeta; contributes: Contribution[] }
  /** `require('../package.json')`: name, version and `hookwise.api` (default the current API) come from it. */
  | { package: PluginPackageJson; contributes: Contribution[] };

export function definePlugin(def: PluginDefinition): HookwisePlugin {
  const meta: PluginMeta =
    'package' in def ? { name: def.package.name, version: def.package.version, api: def.package.hookwise?.api ?? PLUGIN_API_VERSION } : def.meta;
  return { [PLUGIN_MARKER]: true, meta, contributes: def.contributes };
}

/** Shape check (never instanceof): plugins may carry their own copy of @hookwise/core. */
export function isHookwisePlugin(value: unknown): value is HookwisePlugin {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[PLUGIN_MARKER] === true &&
    typeof (value as HookwisePlugin).meta === 'object' &&
    Array.isArray((value as HookwisePlugin).contributes)
  );
}
