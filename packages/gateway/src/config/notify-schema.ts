// `notify:` in config.yaml: where the gateway posts its own lifecycle events, signed in the Standard Webhooks
// format (observe/lifecycle-webhooks.ts, docs/configuration.md#outbound-lifecycle-webhooks).
import { LIFECYCLE_EVENT_NAMES, type LifecycleEventName } from './lifecycle-event-names';

/** The lifecycle events a notify target may choose: every one of observe/lifecycle.ts, in its order. */
export type NotifyEventName = LifecycleEventName;

export const NOTIFY_EVENTS: readonly NotifyEventName[] = LIFECYCLE_EVENT_NAMES;

export const notifySchema = {
  type: 'array',
  default: [],
  description:
    'Outbound lifecycle webhooks: each target gets the events it lists as JSON POSTs signed in the Standard Webhooks format, retried with backoff (docs/configuration.md).',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'secret', 'events'],
    properties: {
      url: { type: 'string', pattern: '^https?://', description: 'Where the events are posted (http or https).' },
      secret: { type: 'string', description: 'Signing secret, whsec_<base64> (keep it in .env: ${NOTIFY_SECRET}).' },
      events: { type: 'array', minItems: 1, items: { type: 'string', enum: NOTIFY_EVENTS }, description: 'The lifecycle events to post.' },
    },
  },
} as const;

export interface NotifyTarget {
  url: string;
  secret: string;
  events: NotifyEventName[];
}
