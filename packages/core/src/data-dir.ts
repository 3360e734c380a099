// Where a gateway keeps what is neither config nor store: the agents' private homes (one per route and preset).

/**
 * The gateway's data dir: HOOKWISE_DATA_DIR, else the XDG state dir of the gateway's user. Never the config dir,
 * which the sandbox hides whole. Each profile has its own (the profile's environment sets HOOKWISE_DATA_DIR to a
 * folder under the gateway's), so agents of two profiles never share a home. Joined with '/' (the sandbox is
 * Linux's): core loads no module at run time.
 */
export function gatewayDataDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env.HOOKWISE_DATA_DIR) return env.HOOKWISE_DATA_DIR;
  if (env.XDG_STATE_HOME) return `${env.XDG_STATE_HOME.replace(/\/+$/, '')}/hookwise`;
  return env.HOME ? `${env.HOME.replace(/\/+$/, '')}/.local/state/hookwise` : undefined;
}
