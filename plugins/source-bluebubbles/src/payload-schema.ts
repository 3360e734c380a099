// What a BlueBubbles server posts to its webhooks (docs.bluebubbles.app, "REST API & Webhooks").
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

export const bluebubblesPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A BlueBubbles server webhook: its type (new-message, updated-message, ...) and data.',
    docs: 'https://docs.bluebubbles.app/server/developer-guides/rest-api-and-webhooks',
    properties: { type: field('string'), data: field(['object', 'array']) },
    required: ['type', 'data'],
  }),
};
