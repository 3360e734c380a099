// The `actions:` block of a route: what the route's agent may ask the gateway to do for it, offered to the agent as
// MCP tools on its job channel (actions-mcp.ts) and checked against these limits on every call (action-policy.ts).
// The names are not listed here: deliverer plugins contribute actions (core's DelivererAction) besides the
// gateway's own `message` and `subscribe`, and each route's block is checked at startup against the options schema
// of the action it names (action-catalogue.ts). An action the block does not name is not offered and is refused.
import type { ActionOptions } from '@hookwise/core';

/** `max`, which the gateway counts for every action. */
export const maxPerRunSchema = {
  type: 'integer',
  minimum: 1,
  description: 'At most this many calls of the action per event: all runs and retries of its job together (default: no limit).',
} as const;

export const actionsSchema = {
  type: 'object',
  description:
    "Actions the gateway performs for the agent with its own credentials (docs/agents.md, Actions): offered as MCP tools on the run's job channel, each call checked against these limits. Keys are action names (the gateway's own or ones deliverer plugins contribute; docs/agents.md lists them); each block is checked against its action's options at startup.",
  propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_-]*(\\.[A-Za-z][A-Za-z0-9_-]*)*$' },
  additionalProperties: {
    type: 'object',
    description: "One action's limits: max, and the options its action takes (docs/agents.md; a contributed action's in its plugin's README).",
    properties: { max: maxPerRunSchema },
  },
} as const;

/** A route's actions: each allowed action's name and its options. */
export type ActionsConfig = Record<string, ActionOptions>;
