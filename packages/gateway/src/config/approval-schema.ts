// `approval:` on a route or subscription: the agent's answer is held until an allowed person approves
// it in the chat (buttons posted by a deliverer with an approval facet: Telegram, Slack, Discord) or on the
// dashboard; deny and expiry deliver nothing (jobs/approval-gate.ts, ingest/approval-answer.ts,
// docs/configuration.md#approvals).

/** A deliverer id or alias whose deliverer can post drafts with buttons (Deliverer.approval); checked at startup. */
export type ApprovalVia = string;

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
      description:
        'Who may approve or deny, each pinned to a platform: <platform>:<user id> (telegram:123, slack:U0123, discord:8049...) or <platform>:<username>; an entry without a platform is refused. A press counts only on the draft the gateway posted (its platform, chat and message); the dashboard decides too.',
    },
    expires_hours: { type: 'number', exclusiveMinimum: 0, default: 24, description: 'Hours after which an unanswered draft ends as expired.' },
    via: {
      type: 'string',
      pattern: '^[a-z][a-z0-9_]*$',
      description:
        'The destination that posts the draft with Approve / Deny buttons: telegram, slack, discord or any deliverer that can (unset: the dashboard only).',
    },
    chat: {
      type: ['string', 'number'],
      description: "The chat (Telegram chat id) or channel (Slack, Discord) for the draft; default: the platform's home_channel.",
    },
  },
} as const;

export interface ApprovalConfig {
  approvers: string[];
  expires_hours?: number;
  via?: ApprovalVia;
  chat?: string | number;
}
