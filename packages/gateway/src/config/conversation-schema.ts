// `conversation:` on a route: a person who replies to one of the route's delivered answers (Telegram
// `reply_to_message`, a Slack thread) continues the conversation: a new job on this route whose prompt carries the
// earlier turns (jobs/conversation-turns.ts, ingest/conversation-step.ts, docs/configuration.md#conversations).

/** Most answers one conversation may hold; each one is a full agent run under the route's budget. */
export const CONVERSATION_MAX_TURNS_LIMIT = 50;

export const conversationSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    "Replies to this route's delivered answers continue the conversation: a new run of this route with the earlier turns in its prompt, answered in the same thread. See docs/configuration.md#conversations.",
  properties: {
    enabled: { type: 'boolean', description: 'true: replies continue the conversation (default false).' },
    max_turns: {
      type: 'integer',
      minimum: 1,
      maximum: CONVERSATION_MAX_TURNS_LIMIT,
      default: 10,
      description: 'Most agent answers in one conversation, the first included; a reply past it is handled as after_limit says.',
    },
    ttl_hours: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 8760,
      default: 72,
      description: 'A reply more than this long after the answer it replies to is handled as after_limit says.',
    },
    after_limit: {
      type: 'string',
      enum: ['ignore', 'new_conversation'],
      default: 'ignore',
      description:
        "A reply past max_turns or ttl_hours: 'ignore' (logged, nothing runs) or 'new_conversation' (a fresh run of this route on the reply alone, answered in the same thread, turn 1 of a new conversation).",
    },
    allow_from: {
      type: 'array',
      minItems: 1,
      items: { anyOf: [{ type: 'string', pattern: '\\S' }, { type: 'integer' }] },
      description:
        "Who may continue: the platform's user ids (Telegram from.id, Slack user, a code host's login), 'association:MEMBER' (OWNER, COLLABORATOR, ...) for everyone the code host marks so, or '*' for anyone who can reply there. Others are ignored (logged); a bare association name is refused.",
    },
  },
  // Who may continue is never implied: a route that turns conversations on names the people.
  if: { properties: { enabled: { enum: [true] } }, required: ['enabled'] },
  then: { required: ['allow_from'] },
} as const;

export interface ConversationConfig {
  enabled?: boolean;
  max_turns?: number;
  ttl_hours?: number;
  allow_from?: Array<string | number>;
  after_limit?: 'ignore' | 'new_conversation';
}

export const DEFAULT_MAX_TURNS = 10;
export const DEFAULT_TTL_HOURS = 72;
