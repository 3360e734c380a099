// What a Matrix homeserver PUTs to an application service: a transaction (spec.matrix.org, Application Service API).
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, listOf, openObject } from '@hookwise/kit/source';

const DOCS = 'https://spec.matrix.org/latest/application-service-api/#put_matrixappv1transactionstxnid';

export const matrixPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Matrix application service transaction: the room events the homeserver pushes.',
    docs: DOCS,
    properties: {
      events: listOf(
        openObject({
          description: 'A Matrix client event',
          docs: 'https://spec.matrix.org/latest/client-server-api/#room-event-format',
          properties: {
            type: field('string'),
            room_id: field('string'),
            sender: field('string'),
            event_id: field('string'),
            origin_server_ts: field('integer'),
            content: field('object'),
          },
          required: ['type'],
        }),
      ),
      ephemeral: listOf(field('object')),
      to_device: listOf(field('object')),
    },
    required: ['events'],
  }),
};
