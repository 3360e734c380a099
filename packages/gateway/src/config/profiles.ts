// Profiles: named sets of routes with their own secrets, platforms, skills, agent defaults and budgets, each kept
// in <config_dir>/profiles/<name>/ in the config dir's own layout (config.yaml, .env, webhook_subscriptions.json,
// skills/). A profile is read as a config dir of its own whose config.yaml lies on top of the global one: each
// profile becomes a gateway of its own, hosted beside the default one (docs/configuration.md, "Profiles").
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { HookwiseConfigError, gatewayDataDir } from '@hookwise/core';

/** The folder under the config dir that holds the profiles. */
export const PROFILES_DIR = 'profiles';
/** What the config dir itself is called as a profile: its routes are served at the unprefixed URLs. */
export const DEFAULT_PROFILE = 'default';
/** A profile's name is a URL part (`/p/<name>/webhooks/<route>`), spelled like a route name. */
export const PROFILE_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * The keys only the config dir's own config.yaml sets: they belong to the process (its listener, store, logs,
 * admin API, plugins), not to one profile's routes. A profile's config.yaml that sets one is refused.
 */
export const GLOBAL_ONLY_KEYS = ['store', 'log', 'admin', 'metrics', 'tracing', 'plugins', 'mcp'] as const;
/** Keys of `platforms.webhook.extra` that are the listener's (global) or the default profile's own (never inherited). */
const LISTENER_KEYS = ['port', 'host'];
const NOT_INHERITED_WEBHOOK_KEYS = ['routes', 'secret', 'secrets'];

export function isValidProfileName(name: string): boolean {
  return PROFILE_NAME_PATTERN.test(name) && name !== DEFAULT_PROFILE;
}

export function invalidProfileNameMessage(name: string): string {
  if (name === DEFAULT_PROFILE) return `'${DEFAULT_PROFILE}' is the config dir itself, not a profile: leave --profile out to use it`;
  return `invalid profile name '${name}': use lower-case letters, digits, '-' and '_', starting with a letter or digit`;
}

/** `<config_dir>/profiles/<name>`; throws a clear error for a name that cannot be a profile's. */
export function profileDir(configDir: string, name: string): string {
  if (!isValidProfileName(name)) throw new HookwiseConfigError([invalidProfileNameMessage(name)], `no profile '${name}'`);
  return join(configDir, PROFILES_DIR, name);
}

/** The profiles a config dir holds: the valid names of the folders under profiles/, sorted. */
export function listProfiles(configDir: string): string[] {
  const dir = join(configDir, PROFILES_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => isValidProfileName(name) && statSync(join(dir, name)).isDirectory())
    .sort();
}

/** The folders under profiles/ that are not valid profile names (a startup warning names them). */
export function misnamedProfileDirs(configDir: string): string[] {
  const dir = join(configDir, PROFILES_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((name) => !isValidProfileName(name) && !name.startsWith('.') && statSync(join(dir, name)).isDirectory());
}

/** Throws a clear error when the profile's folder is missing or its name is not one. */
export function checkProfile(configDir: string, name: string): string {
  const dir = profileDir(configDir, name);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    const known = listProfiles(configDir);
    throw new HookwiseConfigError(
      [`${dir} does not exist (profiles here: ${known.length ? known.join(', ') : 'none'})`],
      `no profile '${name}': create it with \`hookwise profiles add ${name}\``,
    );
  }
  return dir;
}

type Raw = Record<string, unknown>;

const isMapping = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The problems of a profile's own config.yaml: keys only the global config sets. */
export function profileConfigProblems(raw: Raw): string[] {
  const problems = GLOBAL_ONLY_KEYS.filter((key) => raw[key] !== undefined).map(
    (key) => `${key}: set for the whole gateway in the config dir's config.yaml, not in a profile; remove it here`,
  );
  const extra = isMapping(raw.platforms) && isMapping(raw.platforms.webhook) && isMapping(raw.platforms.webhook.extra) ? raw.platforms.webhook.extra : {};
  for (const key of LISTENER_KEYS)
    if (extra[key] !== undefined)
      problems.push(`platforms.webhook.extra.${key}: the listener is the whole gateway's (set it in the config dir's config.yaml); remove it here`);
  return problems;
}

/**
 * A profile's config: the global config with the profile's on top. Inherited: platforms (a profile's block of a
 * platform replaces the global block whole: one bot's token never mixes with another's chat), the agent block (key by
 * key, the budget whole), retry, skills dirs, notify and the global-only keys. Never inherited: the default profile's
 * routes and webhook secrets (a signature made for one profile must not be valid for another's route).
 */
export function mergeProfileConfig(global: Raw, own: Raw): Raw {
  const merged: Raw = { ...global, ...own };
  const platforms: Raw = { ...(isMapping(global.platforms) ? global.platforms : {}) };
  const globalWebhook = isMapping(platforms.webhook) ? platforms.webhook : {};
  const globalExtra = isMapping(globalWebhook.extra) ? { ...globalWebhook.extra } : {};
  for (const key of NOT_INHERITED_WEBHOOK_KEYS) delete globalExtra[key];
  const ownPlatforms = isMapping(own.platforms) ? own.platforms : {};
  const ownWebhook = isMapping(ownPlatforms.webhook) ? ownPlatforms.webhook : {};
  const ownExtra = isMapping(ownWebhook.extra) ? ownWebhook.extra : {};
  Object.assign(platforms, ownPlatforms);
  platforms.webhook = { ...globalWebhook, ...ownWebhook, extra: { ...globalExtra, ...ownExtra } };
  merged.platforms = platforms;
  if (isMapping(global.agent) || isMapping(own.agent))
    merged.agent = { ...(isMapping(global.agent) ? global.agent : {}), ...(isMapping(own.agent) ? own.agent : {}) };
  for (const key of GLOBAL_ONLY_KEYS) {
    if (global[key] === undefined) delete merged[key];
    else merged[key] = global[key];
  }
  return merged;
}

/**
 * The store a profile keeps its records in, beside the default profile's: a SQLite file in a `profiles/<name>/`
 * folder next to the global one, a Redis key prefix of its own. Other backends get `profile` in their options.
 */
export function profileStore(store: Raw | undefined, configDir: string, name: string): Raw {
  const given = store ?? {};
  const backend = typeof given.backend === 'string' ? given.backend : 'memory';
  if (backend === 'sqlite') {
    const file = resolve(configDir, typeof given.path === 'string' ? given.path : 'hookwise.sqlite');
    const path = isAbsolute(file) ? join(dirname(file), PROFILES_DIR, name, basename(file)) : file;
    return { ...given, path };
  }
  if (backend === 'redis') return { ...given, prefix: `${typeof given.prefix === 'string' ? given.prefix : 'hookwise'}:profile:${name}` };
  return given;
}

/**
 * A profile's environment: the config dir's .env, under the process's environment, under the profile's own .env
 * (the profile's values win: they are what makes it its own). The agents' data dir (private homes) is the
 * profile's own folder under the gateway's, so no agent of one profile shares a home with another's.
 */
export function profileEnv(globalEnv: NodeJS.ProcessEnv, ownDotenv: Record<string, string>, name: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...globalEnv, ...ownDotenv };
  const data = gatewayDataDir(globalEnv);
  if (data) env.HOOKWISE_DATA_DIR = join(data, PROFILES_DIR, name);
  return env;
}

/**
 * What the agents of one profile never see of the others': a profile's gateway hides the config dir that holds every
 * profile (and the global .env), and the whole data dir but for its own runs' homes below it; the default gateway
 * hides the data dir's profiles/ folder. `env` is the gateway's own (a profile's sets HOOKWISE_DATA_DIR, profileEnv).
 */
export function profileSandboxHiding(
  profile: { name: string; rootDir: string } | undefined,
  env: NodeJS.ProcessEnv,
): { hidden: string[]; hiddenExceptAllowed: string[] } {
  const data = gatewayDataDir(env);
  if (!profile) return { hidden: data ? [join(data, PROFILES_DIR)] : [], hiddenExceptAllowed: [] };
  // profileEnv made the data dir `<gateway's data dir>/profiles/<name>`: two levels up is the gateway's.
  return { hidden: [profile.rootDir], hiddenExceptAllowed: data ? [dirname(dirname(resolve(data)))] : [] };
}
