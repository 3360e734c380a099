// The JSON Schema and type of `agent.sandbox`, in the global `agent:` block and in a route's own.
// Part of config.yaml's schema (schema.ts, route-schema.ts); after changing it, regenerate the validators as
// schema.ts says. Network entries are checked further by @hookwise/sandbox's parseNetworkList when routes are
// checked (config/sandbox-config.ts), where the route can be named.

export const SANDBOX_MODE_VALUES = ['auto', 'required', 'off'] as const;

/** Defaults of the limits of a sandboxed run (docs/agents.md, Limits per run). */
export const DEFAULT_MEMORY_MB = 2048;
export const DEFAULT_PROCESSES = 256;

export const DEFAULT_MAX_OUTPUT_KB = 1024;

/** `agent.max_output_kb`, globally and in a route's agent block. */
export const MAX_OUTPUT_KB_SCHEMA = {
  type: 'integer',
  minimum: 1,
  description:
    "The most of an agent's stdout kept as its answer, and of its stderr kept for the log and the failure message, in KiB (default 1024). More stdout is read and dropped and the answer is marked as cut; more stderr keeps its start and its end. The run is not ended for it.",
} as const;

export const sandboxSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    "Where the agent's processes run (the command runner and its presets, terminal commands, stdio MCP servers): inside bubblewrap, seeing only a per-job work dir, the system read-only and the network hosts listed. A route's block overrides the global one key by key. See docs/agents.md.",
  properties: {
    mode: {
      type: 'string',
      enum: SANDBOX_MODE_VALUES,
      description:
        "auto (default): sandbox where the machine can (bubblewrap installed, user namespaces allowed), else run unsandboxed with a startup warning; required: refuse to start without it; off: run unsandboxed, with the gateway's access.",
    },
    network: {
      type: 'array',
      items: { type: 'string', pattern: '\\S' },
      description:
        'Hosts the agent may reach through the egress proxy, "host" or "host:port" ([] or unset: none besides what the runner\'s preset needs). A listed host is reachable even on loopback.',
    },
    read_only: { type: 'array', items: { type: 'string', pattern: '\\S' }, description: 'Extra host paths the agent may read (absolute).' },
    writable: { type: 'array', items: { type: 'string', pattern: '\\S' }, description: 'Extra host paths the agent may write (absolute).' },
    memory_mb: {
      type: 'integer',
      minimum: 64,
      description:
        'Private writable memory (heap and anonymous mappings) each sandboxed process may have, in MiB (RLIMIT_DATA; default 2048). An allocation past it fails and the run ends, not retried, naming this setting.',
    },
    processes: {
      type: 'integer',
      minimum: 8,
      description:
        "Processes (and threads) a sandboxed run may have at once (a pids cgroup of the run's own where the gateway may make one, else RLIMIT_NPROC; default 256). A fork past it fails and the run ends, not retried, naming this setting.",
    },
  },
} as const;

/** `agent.sandbox` as loaded. */
export interface SandboxConfig {
  mode?: (typeof SANDBOX_MODE_VALUES)[number];
  network?: string[];
  read_only?: string[];
  writable?: string[];
  memory_mb?: number;
  processes?: number;
}
