// Flags and helpers shared by the commands: the config dir ($HOOKWISE_HOME or ~/.hookwise) and error output.
import { Flags } from '@oclif/core';
import { describeError } from '@hookwise/core';
import { resolveConfigDir } from '@hookwise/gateway';

export const configDirFlag = Flags.string({
  description: 'Config directory (default: $HOOKWISE_HOME or ~/.hookwise).',
  env: 'HOOKWISE_HOME',
});

export function configDirFrom(flag: string | undefined): string {
  return resolveConfigDir(process.env, flag);
}

/** The config dir a command read and what chose it, for answers that found nothing (and their --json). */
export interface ConfigDirOrigin {
  config_dir: string;
  config_dir_from: '--config-dir' | '$HOOKWISE_HOME' | 'default';
}

/**
 * Which config dir the flag resolves to and why. oclif fills the flag from $HOOKWISE_HOME too, so the command
 * line tells the two apart: a second terminal without the export reads ~/.hookwise, and the user must see that.
 */
export function configDirOrigin(flag: string | undefined, argv: readonly string[] = process.argv, env: NodeJS.ProcessEnv = process.env): ConfigDirOrigin {
  const typed = argv.some((arg) => arg === '--config-dir' || arg.startsWith('--config-dir='));
  const from = flag === undefined ? 'default' : !typed && env.HOOKWISE_HOME === flag ? '$HOOKWISE_HOME' : '--config-dir';
  return { config_dir: configDirFrom(flag), config_dir_from: from };
}

/** "/path (from $HOOKWISE_HOME)", or for the default the hint that $HOOKWISE_HOME was not set in this shell. */
export function describeConfigDir(origin: ConfigDirOrigin): string {
  if (origin.config_dir_from === 'default') return `${origin.config_dir} (the default: $HOOKWISE_HOME is not set here)`;
  return `${origin.config_dir} (from ${origin.config_dir_from})`;
}

/** A readable message for errors a user can fix (config problems are listed one per line). */
export function userMessage(err: unknown): string {
  return describeError(err);
}
