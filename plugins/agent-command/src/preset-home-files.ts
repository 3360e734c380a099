// Files a preset writes into the route's private home before each run, for a CLI that takes its model endpoint from a
// file rather than the environment the model proxy gives the run (the proxy's URL and a per-run token in place of
// the key). Each returns the variables that point the CLI at its file. No file holds the run's token: it stays in the
// environment, where the CLI reads it by the variable's name (opencode's copy of an operator's OPENCODE_CONFIG holds
// what that file holds).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HookwiseError, errorMessage } from '@hookwise/core';

function write(home: string, name: string, content: unknown): string {
  const dir = join(home, '.hookwise');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, name);
  // Written aside and renamed: another run of the route may be reading the file right now.
  const next = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(next, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  renameSync(next, file);
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

/**
 * opencode's providers the model proxy serves, with the path each one's AI SDK client (@ai-sdk/anthropic, /openai,
 * /google) expects at the end of its `baseURL`: it appends `/messages`, `/responses` or `/models/<id>:...` to it.
 */
export const OPENCODE_PROXIED_PROVIDERS: Readonly<Record<string, string>> = { anthropic: '/v1', openai: '/v1', google: '/v1beta' };

/**
 * opencode reads no base URL from the environment for these providers: its config does (`provider.<id>.options
 * .baseURL` and `.apiKey`, anomalyco/opencode packages/opencode/src/provider/provider.ts, where a configured
 * apiKey wins over the provider's key variable). All three are set, not only the model's provider, because the
 * proxy's token sits in ANTHROPIC_API_KEY, OPENAI_API_KEY and GEMINI_API_KEY alike, so opencode counts all three
 * as usable (its default model and small model may come from any). The key is `{env:HOOKWISE_MODEL_PROXY_TOKEN}`,
 * which opencode substitutes when it loads a config file: the file, shared by the route's runs, holds no token,
 * and concurrent runs cannot read each other's. An operator's OPENCODE_CONFIG is the base (opencode reads one
 * such file), with these three providers' baseURL and apiKey replaced.
 */
export function opencodeProxyConfig(home: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const url = env.HOOKWISE_MODEL_PROXY_URL;
  if (!url) return {};
  const base = env.OPENCODE_CONFIG ? operatorConfig(env.OPENCODE_CONFIG) : {};
  const provider: Record<string, unknown> = { ...objectAt(base, 'provider') };
  for (const [id, path] of Object.entries(OPENCODE_PROXIED_PROVIDERS)) {
    const entry = objectAt(provider, id);
    provider[id] = { ...entry, options: { ...objectAt(entry, 'options'), baseURL: `${url}${path}`, apiKey: '{env:HOOKWISE_MODEL_PROXY_TOKEN}' } };
  }
  return { OPENCODE_CONFIG: write(home, 'opencode.json', { ...base, provider }) };
}

function objectAt(parent: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = parent[key];
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function operatorConfig(path: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new HookwiseError(
      'HW_E_AGENT',
      `opencode: OPENCODE_CONFIG (${path}) could not be read as JSON (${errorMessage(err)}); with the model proxy the preset writes its providers over a copy of that file: make it plain JSON (no comments or trailing commas) or unset OPENCODE_CONFIG`,
      { retryable: false },
    );
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new HookwiseError('HW_E_AGENT', `opencode: OPENCODE_CONFIG (${path}) is not a JSON object`, { retryable: false });
  return parsed as Record<string, unknown>;
}
