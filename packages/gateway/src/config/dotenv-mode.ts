// `<config_dir>/.env` holds the secrets: a copy readable by the group or by anyone is named at start with the fix.
import { statSync } from 'node:fs';
import { join } from 'node:path';

/** The warning for a `.env` that others may read, or undefined (mode 0600/0400, no file, or Windows). */
export function dotenvModeProblem(configDir: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform === 'win32') return undefined;
  const file = join(configDir, '.env');
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
  if ((mode & 0o077) === 0) return undefined;
  const who = mode & 0o007 ? 'any user of this machine' : "the file's group";
  return `${file} holds secrets but ${who} can read or change it (mode 0${mode.toString(8)}): run \`chmod 600 ${file}\``;
}
