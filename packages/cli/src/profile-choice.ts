// The --profile flag and what it chooses: a profile's folder under <config_dir>/profiles/ read over the global
// config, or (without the flag) the config dir itself, the default profile. Every command that reads or writes a
// config dir resolves it here, so that all of them agree on where a profile's files, store and URLs are.
import { Flags } from '@oclif/core';
import { checkProfile, DEFAULT_PROFILE, loadConfig, type LoadedConfig } from '@hookwise/gateway';
import { configDirFrom } from './config-dir';

export const profileFlag = Flags.string({
  description: `Act on this profile (<config_dir>/profiles/<name>, made by \`hookwise profiles add\`); '${DEFAULT_PROFILE}' or unset: the config dir's own routes.`,
  env: 'HOOKWISE_PROFILE',
});

export interface ProfileChoice {
  /** The config dir itself (--config-dir, $HOOKWISE_HOME or ~/.hookwise): its gateway.run.json is the running gateway's. */
  rootDir: string;
  /** The chosen profile; undefined for the default profile. */
  profile?: string;
  /** Where the profile's files are (config.yaml, .env, subscriptions, skills, trials): rootDir for the default profile. */
  dir: string;
}

/**
 * Resolves the flags; a profile that does not exist (or a name that cannot be one) throws the config's clear error
 * naming the profiles there are. An empty value counts as unset, so `HOOKWISE_PROFILE=` in a shell means the default.
 */
export function chooseProfile(configDirFlag: string | undefined, profile: string | undefined): ProfileChoice {
  const rootDir = configDirFrom(configDirFlag);
  if (!profile || profile === DEFAULT_PROFILE) return { rootDir, dir: rootDir };
  return { rootDir, profile, dir: checkProfile(rootDir, profile) };
}

/** The chosen profile's config (its config.yaml over the global one, its .env, its own store), as a gateway loads it. */
export function loadChosen(choice: ProfileChoice, env?: NodeJS.ProcessEnv): LoadedConfig {
  return loadConfig({ configDir: choice.rootDir, profile: choice.profile, ...(env ? { env } : {}) });
}

/** The name the admin API takes in `?profile=`: `default` for the config dir's own routes. */
export function profileName(choice: Pick<ProfileChoice, 'profile'>): string {
  return choice.profile ?? DEFAULT_PROFILE;
}

/** "profile 'acme' (/x/profiles/acme)" for messages that otherwise name the config dir. */
export function describeProfile(choice: ProfileChoice): string {
  return `profile '${choice.profile ?? DEFAULT_PROFILE}' (${choice.dir})`;
}

/** ` --profile acme`, to add to a command a message suggests; empty for the default profile. */
export function profileArg(choice: Pick<ProfileChoice, 'profile'>): string {
  return choice.profile ? ` --profile ${choice.profile}` : '';
}
