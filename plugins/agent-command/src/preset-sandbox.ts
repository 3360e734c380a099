// What each preset's CLI needs inside the agent sandbox: its config and login directories under the
// gateway user's home, the API hosts it calls, and the variables that point it at them. The gateway adds these to
// the route's `agent.sandbox` for every run of the preset, so the common setups work with the sandbox on and a
// user lists only what is theirs (a proxy, a Vertex region host, a self-hosted model). `hookwise doctor` lists them.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentSandboxNeeds } from '@hookwise/core';
import type { PresetName } from './preset-name';

export interface PresetSandbox {
  /** Paths under the home directory the CLI reads (config it never writes). */
  readOnly: readonly string[];
  /** Paths under the home directory the CLI writes (login tokens it refreshes, sessions, caches). */
  writable: readonly string[];
  /** API hosts it calls, "host" or "host:port". */
  network: readonly string[];
  /** Variables it reads besides the preset's credential ones, passed when the gateway's environment has them. */
  env: readonly string[];
}

export const PRESET_SANDBOX: Readonly<Record<PresetName, PresetSandbox>> = {
  // Claude Code keeps its login and settings in ~/.claude and ~/.claude.json (both rewritten as it runs).
  claude: {
    readOnly: [],
    writable: ['.claude', '.claude.json'],
    network: ['api.anthropic.com'],
    env: ['ANTHROPIC_BASE_URL', 'CLAUDE_CONFIG_DIR'],
  },
  // Codex keeps auth.json, config.toml and sessions in ~/.codex; a ChatGPT login calls chatgpt.com.
  codex: {
    readOnly: [],
    writable: ['.codex'],
    network: ['api.openai.com', 'chatgpt.com'],
    env: ['OPENAI_BASE_URL', 'CODEX_HOME'],
  },
  // Gemini CLI keeps settings and its Google login in ~/.gemini; a Google login refreshes through oauth2 and
  // calls Code Assist (cloudcode-pa); an API key calls generativelanguage. Vertex AI users add their region's host.
  gemini: {
    readOnly: [],
    writable: ['.gemini'],
    network: ['generativelanguage.googleapis.com', 'cloudcode-pa.googleapis.com', 'oauth2.googleapis.com'],
    env: [],
  },
  // opencode reads its config from ~/.config/opencode and keeps logins and state in ~/.local/share/opencode;
  // models.dev is its model list. The model provider's host depends on the configured model: add it to network.
  opencode: {
    readOnly: ['.config/opencode'],
    writable: ['.local/share/opencode', '.local/state/opencode', '.cache/opencode'],
    network: ['models.dev'],
    env: ['OPENCODE_CONFIG'],
  },
};

/**
 * A preset's needs as absolute paths under `home` (the gateway's HOME). HOME inside stays the real home when one
 * of those paths exists (the CLI finds its login there); otherwise it is the work dir.
 */
export function presetSandboxNeeds(name: PresetName, home: string = homedir()): AgentSandboxNeeds {
  const preset = PRESET_SANDBOX[name];
  const readOnly = preset.readOnly.map((p) => join(home, p));
  const writable = preset.writable.map((p) => join(home, p));
  const found = [...readOnly, ...writable].some((p) => existsSync(p));
  return { readOnly, writable, network: [...preset.network], home: found ? home : undefined };
}
