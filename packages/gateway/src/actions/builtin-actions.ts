// The gateway's own actions, which need no deliverer plugin: `message` (a message to one of the route's allowed
// destinations, through that destination's deliverer) and `subscribe` (the agent's self-subscription, through the
// job channel's own checks). Described like a contributed action (core's DelivererAction); run-actions.ts performs them.
import type { DelivererAction } from '@hookwise/core';
import { nonEmpty, textInput } from './action-inputs';

export type BuiltinAction = Omit<DelivererAction, 'run'>;

interface MessageOptions {
  to?: string[];
}

const message: BuiltinAction = {
  name: 'message',
  description: (options) => `Send a message to one of these destinations: ${((options as MessageOptions).to ?? []).join(', ')}.`,
  optionsSchema: {
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
    },
    description: 'Send a message to one of these destinations.',
  },
  inputSchema: (options) => ({
    type: 'object',
    additionalProperties: false,
    required: ['to', 'text'],
    properties: { to: { type: 'string', enum: (options as MessageOptions).to ?? [] }, text: textInput('The message.') },
  }),
  check(input, options) {
    const to = (options as MessageOptions).to ?? [];
    if (typeof input.to !== 'string' || !to.includes(input.to))
      return { ok: false, reason: `destination '${String(input.to)}' is not allowed for messages on this route; allowed: ${to.join(', ')}` };
    if (!nonEmpty(input.text)) return { ok: false, reason: 'message needs a non-empty text' };
    return { ok: true, input: { to: input.to, text: input.text } };
  },
};

const subscribe: BuiltinAction = {
  name: 'subscribe',
  description:
    'Create (or change) a webhook subscription: a new route whose events run an agent with this prompt. The gateway generates its secret and answers with its URL.',
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {},
    description: "Create or change a webhook subscription made by this run (the agent's self-subscription; the gateway generates the secret).",
  },
  inputSchema: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', pattern: '^[A-Za-z0-9_-]+$', description: 'The route name (its URL is /webhooks/<name>).' },
      description: { type: 'string' },
      events: { type: 'array', items: { type: 'string' } },
      prompt: { type: 'string' },
      skills: { type: 'array', items: { type: 'string' } },
      deliver: {},
      deliver_extra: { type: 'object' },
      filter: {},
    },
  },
  check(input) {
    if (!nonEmpty(input.name)) return { ok: false, reason: 'subscribe needs the name of the route to create' };
    return { ok: true, input };
  },
};

/** In the order they are offered, after the contributed ones. */
export const BUILTIN_ACTIONS: readonly BuiltinAction[] = [message, subscribe];
