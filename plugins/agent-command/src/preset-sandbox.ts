// What each preset's CLI needs inside the agent sandbox: a home of its own per route, the API hosts it calls, and
// the variables that point it at them. The gateway adds these to the route's `agent.sandbox` for every run of the
// preset, so the common setups work with the sandbox on and a user lists only what is theirs (a proxy, a Vertex
// region host, a self-hosted model). `hookwise doctor` lists them.
//
// The home is never the operator's: the CLI's settings, sessions and login files live in a directory kept per route
// under the gateway's data dir, so a run cannot read or change the operator's ~/.claude or ~/.codex (their
// settings, their other projects' sessions, their login), and --resume finds the route's last session on the next
// run. Credentials come from the run's environment (ANTHROPIC_API_KEY, CODEX_API_KEY, ...), or, with
// `login_from`, from a read-only copy of the operator's login file alone (./preset-login).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gatewayDataDir, type AgentSandboxNeeds } from '@hookwise/core';
import type { PresetName } from './preset-name';
import { PRESET_LOGINS } from './preset-login';

export interface PresetSandbox {
  /** API hosts it calls, "host" or "host:port". */
  network: readonly string[];
  /** Variables it reads besides the preset's credential ones, passed when the gateway's environment has them. */
  env: readonly string[];
}

export const PRESET_SANDBOX: Readonly<Record<PresetName, PresetSandbox>> = {
  // ANTHROPIC_BASE_URL: a proxy or gateway in front of the API (the key then is the one it gives out).
  claude: { network: ['api.anthropic.com'], env: ['ANTHROPIC_BASE_URL'] },
  // Codex ignores OPENAI_BASE_URL itself: the preset turns it into a model provider entry (./presets).
  codex: { network: ['api.openai.com'], env: ['OPENAI_BASE_URL'] },
  // An API key calls generativelanguage; Vertex AI users add their region's host.
  gemini: { network: ['generativelanguage.googleapis.com'], env: [] },
  // models.dev is its model list. The model provider's host depends on the configured model: add it to network.
  opencode: { network: ['models.dev'], env: ['OPENCODE_CONFIG'] },
};

/** The route's private home for a preset's CLI: `<data dir>/agent-homes/<route>/<preset>`, made on first use (0700). */
export function privateHome(name: PresetName, route: string, env: NodeJS.ProcessEnv): string | undefined {
  const data = gatewayDataDir(env);
  if (!data) return undefined;
  // Route names are config keys; anything outside the safe set is spelled out, so no name climbs out of the dir.
  const safe = route.replace(/[^A-Za-z0-9._-]/g, (c) => `%${c.charCodeAt(0).toString(16)}`).replace(/^\.+/, (dots) => '%2e'.repeat(dots.length));
  const home = join(data, 'agent-homes', safe || '%', name);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return home;
}

/**
 * A preset's needs for one route's runs: its private home (writable, HOME inside) and API hosts; with `login`
 * (agent.login_from, ./preset-login), the login file's copy in that home read-only and the hosts the login calls.
 */
export function presetSandboxNeeds(name: PresetName, route: string | undefined, env: NodeJS.ProcessEnv, login = false): AgentSandboxNeeds {
  const subscription = login ? PRESET_LOGINS[name] : undefined;
  const network = [...PRESET_SANDBOX[name].network, ...(subscription?.network ?? [])];
  const home = route === undefined ? undefined : privateHome(name, route, env);
  if (!home) return { network };
  return { network, writable: [home], home, ...(subscription && { readOnly: [join(home, subscription.file)] }) };
}
