// Finds, parses, expands and validates config.yaml; every problem names its key path.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ErrorObject } from 'ajv';
import { closestMatch, HookwiseConfigError, errorMessage } from '@hookwise/core';
import { validateConfig } from '../generated/config-validator';
import { expandEnv, parseBoolean, parseDotenv } from './env';
import { checkProfile, mergeProfileConfig, profileConfigProblems, profileEnv, profileStore } from './profiles';
import { configSchema, type HookwiseConfig } from './schema';

export const CONFIG_SEARCH_PLACES = ['config.yaml', 'config.yml', 'config.json'];

export interface LoadedConfig {
  config: HookwiseConfig;
  configDir: string;
  /** The file the config came from; undefined when the directory has none (defaults only). */
  configFile?: string;
  /** process.env merged over .env (real environment variables win); a profile's own .env over both. */
  env: NodeJS.ProcessEnv;
  /** Set when this is a profile's config: its name and the config dir that holds it (configDir is the profile's). */
  profile?: { name: string; rootDir: string };
}

export interface LoadConfigOptions {
  configDir?: string;
  env?: NodeJS.ProcessEnv;
  /** A profile of the config dir (`<config_dir>/profiles/<name>`): its config over the global one. */
  profile?: string;
}

/** `$HOOKWISE_HOME`, else `~/.hookwise`. */
export function resolveConfigDir(env: NodeJS.ProcessEnv = process.env, explicit?: string): string {
  return resolve(explicit ?? (env.HOOKWISE_HOME || join(homedir(), '.hookwise')));
}

export function readDotenv(configDir: string): Record<string, string> {
  const file = join(configDir, '.env');
  return existsSync(file) ? parseDotenv(readFileSync(file, 'utf8')) : {};
}

function keyPath(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  return path || '(root)';
}

/** The keys the schema object around an additionalProperties error knows (its schemaPath's parent). */
function knownKeys(error: ErrorObject): string[] {
  let node: unknown = configSchema;
  for (const segment of error.schemaPath.replace(/^#\//, '').split('/').slice(0, -1)) {
    if (node === null || typeof node !== 'object') return [];
    node = (node as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  const properties = (node as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties ? Object.keys(properties) : [];
}

export function describeSchemaError(error: ErrorObject): string {
  const at = keyPath(error);
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = (error.params as { additionalProperty: string }).additionalProperty;
      const match = closestMatch(key, knownKeys(error));
      return `${at}: unknown key '${key}'${match ? ` (did you mean '${match}'?)` : ''}`;
    }
    case 'enum':
      return `${at}: must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'type': {
      const type = (error.params as { type: string }).type;
      // YAML 1.2 reads `yes`, `on` and `True` as strings: say what a boolean is written as.
      return `${at}: must be ${type}${type === 'boolean' ? ': use true or false' : ''}`;
    }
    default:
      return `${at}: ${error.message ?? 'is invalid'}`;
  }
}

/** Validates a raw config object in place (defaults applied); throws HookwiseConfigError listing every problem. */
export function validateConfigObject(raw: unknown, source = 'config'): HookwiseConfig {
  const value = (raw ?? {}) as Record<string, unknown>;
  // ajv's validator of configSchema, generated ahead of time (scripts/gen-validators.js): ajv is not loaded here.
  if (!validateConfig(value)) {
    const problems = [...new Set((validateConfig.errors ?? []).filter((e) => e.keyword !== 'anyOf').map(describeSchemaError))];
    throw new HookwiseConfigError(problems, `${source} is not valid`);
  }
  return value as unknown as HookwiseConfig;
}

function applyEnvOverrides(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, problems: string[]): void {
  const platforms = (raw.platforms ??= {}) as Record<string, unknown>;
  const webhook = (platforms.webhook ??= {}) as Record<string, unknown>;
  const extra = (webhook.extra ??= {}) as Record<string, unknown>;
  const enabled = parseBoolean(env.WEBHOOK_ENABLED);
  if (enabled !== undefined) webhook.enabled = enabled;
  if (env.WEBHOOK_PORT) {
    const port = Number(env.WEBHOOK_PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`WEBHOOK_PORT: '${env.WEBHOOK_PORT}' is not a port number (0-65535)`);
    else extra.port = port;
  }
  if (env.WEBHOOK_HOST) extra.host = env.WEBHOOK_HOST;
  if (env.WEBHOOK_SECRET) {
    // A comma-separated list rotates: `WEBHOOK_SECRET=new,old`.
    const secrets = env.WEBHOOK_SECRET.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (secrets.length > 1) {
      extra.secrets = secrets;
      delete extra.secret;
    } else {
      extra.secret = secrets[0] ?? env.WEBHOOK_SECRET;
    }
  }
}

/** The config file of a dir, parsed, with `${VAR}` expanded from `env` (problems collected); `{}` when there is none. */
function readConfigFile(configDir: string, env: NodeJS.ProcessEnv, problems: string[]): { raw: Record<string, unknown>; file?: string } {
  // Required here, not at the top: importing @hookwise/core stays cheap for code that never loads a config.
  const { cosmiconfigSync } = require('cosmiconfig') as typeof import('cosmiconfig');
  const explorer = cosmiconfigSync('hookwise', { searchPlaces: CONFIG_SEARCH_PLACES, searchStrategy: 'none', cache: false });
  let found: { config: unknown; filepath: string; isEmpty?: boolean } | null;
  try {
    found = explorer.search(configDir);
  } catch (err) {
    throw new HookwiseConfigError([`${errorMessage(err)}`], `the config file in ${configDir} does not parse (fix the syntax error)`);
  }
  if (found && !found.isEmpty && (typeof found.config !== 'object' || Array.isArray(found.config) || found.config === null)) {
    throw new HookwiseConfigError([`(root): must be a mapping of keys (platforms, agent, store, ...)`], `${found.filepath} is not valid`);
  }
  return { raw: expandEnv(found?.config ?? {}, env, problems) as Record<string, unknown>, file: found?.filepath };
}

/** `.env` under the real environment: real variables win, except empty ones (an exported-but-empty one is unset). */
function environmentOf(configDir: string, baseEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = readDotenv(configDir);
  for (const [key, value] of Object.entries(baseEnv)) if (value !== '' || env[key] === undefined) env[key] = value;
  return env;
}

/**
 * Loads `<config_dir>/config.yaml` (or .yml/.json) with `.env`, `${VAR}` expansion and env overrides; with
 * `profile`, the profile's config dir (config/profiles.ts) on top of the global config.
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const baseEnv = options.env ?? process.env;
  const configDir = resolveConfigDir(baseEnv, options.configDir);
  const globalEnv = environmentOf(configDir, baseEnv);
  if (options.profile !== undefined) return loadProfileConfig(configDir, options.profile, globalEnv);
  const problems: string[] = [];
  const { raw, file } = readConfigFile(configDir, globalEnv, problems);
  applyEnvOverrides(raw, globalEnv, problems);
  if (problems.length) throw new HookwiseConfigError(problems, `${file ?? configDir} is not valid`);
  const config = validateConfigObject(raw, file ?? 'config');
  return { config, configDir, configFile: file, env: globalEnv };
}

function loadProfileConfig(rootDir: string, name: string, globalEnv: NodeJS.ProcessEnv): LoadedConfig {
  const dir = checkProfile(rootDir, name);
  const env = profileEnv(globalEnv, readDotenv(dir), name);
  const problems: string[] = [];
  const global = readConfigFile(rootDir, env, problems);
  const own = readConfigFile(dir, env, problems);
  problems.push(...profileConfigProblems(own.raw));
  const where = own.file ?? join(dir, 'config.yaml');
  if (problems.length) throw new HookwiseConfigError(problems, `profile '${name}': ${where} is not valid`);
  const raw = mergeProfileConfig(global.raw, own.raw);
  raw.store = profileStore(raw.store as Record<string, unknown> | undefined, rootDir, name);
  const config = validateConfigObject(raw, `profile '${name}' (${where} over ${global.file ?? rootDir})`);
  return { config, configDir: dir, configFile: own.file, env, profile: { name, rootDir } };
}
