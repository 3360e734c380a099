// What Linear posts (linear.app/developers/webhooks, "Data change events payload").
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

export const linearPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Linear webhook payload: a data change (action create, update or remove) of an entity of a type.',
    docs: 'https://linear.app/developers/webhooks',
    properties: {
      action: field('string', 'create, update or remove'),
      type: field('string', 'The entity type: Issue, Comment, Project, ...'),
      actor: field('object', 'Who made the change'),
      createdAt: field('string'),
      data: field('object', 'The entity after the change'),
      url: field('string'),
      updatedFrom: field('object', 'The previous values of what an update changed'),
      webhookTimestamp: field('integer', 'Milliseconds since the epoch, signed'),
      webhookId: field('string'),
      organizationId: field('string'),
    },
    required: ['type', 'webhookTimestamp'],
  }),
};
