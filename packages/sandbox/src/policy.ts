// What a run will have, from the configured mode and what the machine can do. The result carries its reason
// so the startup log, `hookwise doctor`, `deliveries show` and the dashboard can say why a run was (not)
// sandboxed.
import { HookwiseConfigError } from '@hookwise/core';
import type { SandboxProbe } from './probe';

/** `auto` (default): sandbox where possible, else run with a warning. `required`: refuse without. `off`: never. */
export type SandboxMode = 'auto' | 'required' | 'off';
export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'required', 'off'];

export interface SandboxDecision {
  mode: SandboxMode;
  /** True when runs go inside bubblewrap. */
  sandboxed: boolean;
  /** Why, in one line (for logs, doctor, deliveries show). */
  reason: string;
  /** Set when the run is unsandboxed although the mode wanted it (auto): log it at startup. */
  warning?: string;
  /** The bwrap binary to use when sandboxed. */
  bwrapPath?: string;
}

/**
 * Throws a HookwiseConfigError when `required` cannot be met (naming what is missing and how to get it) or the
 * mode is not one of SANDBOX_MODES; `where` names the config key for the message (e.g. "route 'ci' agent.sandbox").
 */
export function resolveSandboxPolicy(mode: SandboxMode | undefined, probe: SandboxProbe, where = 'agent.sandbox'): SandboxDecision {
  const chosen = mode ?? 'auto';
  if (!SANDBOX_MODES.includes(chosen)) throw new HookwiseConfigError([`${where}.mode is '${String(mode)}': use one of ${SANDBOX_MODES.join(', ')}`]);
  if (chosen === 'off') return { mode: chosen, sandboxed: false, reason: `${where}.mode is off: agent processes run unsandboxed, with the gateway's access` };
  if (probe.available) return { mode: chosen, sandboxed: true, reason: `sandboxed (${where}.mode ${chosen}): ${probe.reason}`, bwrapPath: probe.bwrapPath };
  if (chosen === 'required')
    throw new HookwiseConfigError(
      [
        `${where}.mode is required but the sandbox is unavailable: ${probe.reason}; to fix: ${probe.fix ?? INSTALL_HINT} (or set ${where}.mode: auto to run unsandboxed with a warning)`,
      ],
      'Cannot start agent runs',
    );
  const warning = `agent processes run UNSANDBOXED (${where}.mode auto): ${probe.reason}; to sandbox them: ${probe.fix ?? INSTALL_HINT}`;
  return { mode: chosen, sandboxed: false, reason: warning, warning };
}

const INSTALL_HINT = 'install bubblewrap';
