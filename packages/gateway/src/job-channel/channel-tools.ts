// What a run's channel offers its agent as MCP tools (channel-mcp.ts): whatever the gateway wires in (the route's
// actions, actions/run-actions.ts) as long as it speaks this shape. The channel knows tools, not actions.

export interface ChannelTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** What one tool call answered: the text the agent reads, and whether it is an error. */
export interface ChannelToolAnswer {
  ok: boolean;
  text: string;
  /** Refused by the route's policy (never performed), as opposed to performed and failed. */
  refused?: boolean;
  /** Done: what the call gave back (its receipt); failed: what the other side answered, when it said. */
  detail?: unknown;
}

/** Why a tool the route does not offer is refused: the same words on the MCP endpoint and on the REST endpoints. */
export function notOfferedReason(name: string, offered: readonly string[]): string {
  return `'${name}' is not an action this route allows; allowed: ${offered.length ? offered.join(', ') : 'none'}`;
}

/** Creates or changes a subscription as the run's own, through the channel's checks (job-channel-requests.ts). */
export type ChannelSubscribe = (name: string, body: Record<string, unknown>) => Promise<{ status: number; body: unknown }>;

export interface ChannelTools {
  tools(): ChannelTool[];
  /** The offered names, comma-separated (HOOKWISE_JOB_ACTIONS). */
  names(): string;
  call(name: string, args: unknown): Promise<ChannelToolAnswer>;
  /** Given by the channel when the run's session opens. */
  bindSubscribe(subscribe: ChannelSubscribe): void;
}
