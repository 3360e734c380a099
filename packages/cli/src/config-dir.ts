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

/** A readable message for errors a user can fix (config problems are listed one per line). */
export function userMessage(err: unknown): string {
  return describeError(err);
}
