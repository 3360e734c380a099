// Files a preset writes into the route's private home before each run, for a CLI that takes its model endpoint from a
// file rather than the environment the model proxy gives the run (the proxy's URL and a per-run token in place of
// the key). Each returns the variables that point the CLI at its file. No file holds a secret: the token stays in the
// environment, where the CLI reads it by the variable's name.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function write(home: string, name: string, content: unknown): string {
  const dir = join(home, '.hookwise');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, name);
  writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  return file;
}

/**
 * Gemini CLI: GOOGLE_GEMINI_BASE_URL alone makes it pick its `gateway` auth type, which its headless auth check then
 * refuses ("Invalid auth method selected", gemini-cli packages/cli/src/config/auth.ts). A system settings file
 * (GEMINI_CLI_SYSTEM_SETTINGS_PATH, over the user's and the workspace's settings) selects `gemini-api-key`: the CLI
 * then sends GEMINI_API_KEY (the run's token) as x-goog-api-key to GOOGLE_GEMINI_BASE_URL (the proxy).
 */
export function geminiProxySettings(home: string, env: NodeJS.ProcessEnv): Record<string, string> {
  if (!env.GOOGLE_GEMINI_BASE_URL || !env.HOOKWISE_MODEL_PROXY_URL) return {};
  const file = write(home, 'gemini-system-settings.json', { security: { auth: { selectedType: 'gemini-api-key' } } });
  return { GEMINI_CLI_SYSTEM_SETTINGS_PATH: file };
}
