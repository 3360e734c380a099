// `approval:` on a route or subscription (issue 31): the agent's answer is held until an allowed person approves
// it in the chat (Telegram inline keyboard, Slack buttons) or on the dashboard; deny and expiry deliver nothing
// (jobs/approval-gate.ts, ingest/approval-answer.ts, docs/configuration.md#approvals).

export const APPROVAL_VIA = ['telegram', 'slack'] as const;
export type ApprovalVia = (typeof APPROVAL_VIA)[number];

export const approvalSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['approvers'],
  description:
    "Holds the agent's answer until an allowed approver presses Approve (in the chat or on the dashboard); Deny or expiry end the job with nothing delivered. See docs/configuration.md#approvals.",
  properties: {
    approvers: {
      type: 'array',
      minItems: 1,
      items: { type: 'string', pattern: '\\S' },
      description: 'Who may approve or deny: platform user ids or usernames, optionally as telegram:<id> or slack:<id>.',
    },
    expires_hours: { type: 'number', exclusiveMinimum: 0, default: 24, description: 'Hours after which an unanswered draft ends as expired.' },
    via: { type: 'string', enum: APPROVAL_VIA, description: 'Where the draft with Approve / Deny buttons is posted (unset: the dashboard only).' },
    chat: {
      type: ['string', 'number'],
      description: "The chat (Telegram chat id) or channel (Slack) for the draft; default: the platform's home_channel.",
    },
  },
} as const;

export interface ApprovalConfig {
  approvers: string[];
  expires_hours?: number;
  via?: ApprovalVia;
  chat?: string | number;
}
