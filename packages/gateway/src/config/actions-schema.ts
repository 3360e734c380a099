// The `actions:` block of a route (issue 30): what the route's agent may ask the gateway to do for it, offered to
// the agent as MCP tools on its job channel (jobs/actions-mcp.ts) and checked against these limits on every call
// (jobs/actions-policy.ts). An action the block does not name is not offered and is refused if called.

const labelList = { type: 'array', items: { type: 'string', pattern: '\\S' }, uniqueItems: true } as const;
const maxPerRun = { type: 'integer', minimum: 1, description: 'At most this many calls of the action per agent run (default: no limit).' } as const;

export const actionsSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    "Actions the gateway performs for the agent with its own credentials (docs/agents.md, Actions): offered as MCP tools on the run's job channel, each call checked against these limits.",
  properties: {
    'github.comment': {
      type: 'object',
      additionalProperties: false,
      properties: { max: maxPerRun },
      description: 'Comment on the issue or pull request of the event.',
    },
    'github.add_labels': {
      type: 'object',
      additionalProperties: false,
      properties: { allow: { ...labelList, description: 'Only these labels may be added (default: any).' }, max: maxPerRun },
      description: 'Add labels to the issue or pull request of the event.',
    },
    'github.review': {
      type: 'object',
      additionalProperties: false,
      properties: {
        max: maxPerRun,
        events: {
          type: 'array',
          items: { type: 'string', enum: ['COMMENT', 'APPROVE', 'REQUEST_CHANGES'] },
          uniqueItems: true,
          description: 'Review verdicts the agent may give (default: COMMENT only).',
        },
      },
      description: 'Review the pull request of the event, with line comments.',
    },
    'gitlab.note': {
      type: 'object',
      additionalProperties: false,
      properties: { max: maxPerRun },
      description: 'Post a note on the merge request or issue of the event (with platforms.gitlab_comment.token).',
    },
    message: {
      type: 'object',
      additionalProperties: false,
      required: ['to'],
      properties: {
        to: {
          type: 'array',
          minItems: 1,
          items: { type: 'string', pattern: '\\S' },
          uniqueItems: true,
          description: 'Deliverer ids (or route destination names) a message may go to.',
        },
        max: maxPerRun,
      },
      description: 'Send a message to one of these destinations.',
    },
    subscribe: {
      type: 'object',
      additionalProperties: false,
      properties: { max: maxPerRun },
      description: "Create or change a webhook subscription made by this run (the agent's self-subscription; the gateway generates the secret).",
    },
  },
} as const;

export interface ActionsConfig {
  'github.comment'?: { max?: number };
  'github.add_labels'?: { allow?: string[]; max?: number };
  'github.review'?: { max?: number; events?: Array<'COMMENT' | 'APPROVE' | 'REQUEST_CHANGES'> };
  'gitlab.note'?: { max?: number };
  message?: { to: string[]; max?: number };
  subscribe?: { max?: number };
}

export type ActionName = keyof ActionsConfig;
