// What Sentry integrations post (docs.sentry.io, integration platform "Webhooks": the shared attributes).
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

export const sentryPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Sentry integration webhook payload (the resource is the Sentry-Hook-Resource header).',
    docs: 'https://docs.sentry.io/organization/integrations/integration-platform/webhooks/',
    properties: {
      action: field('string', 'e.g. created, resolved, triggered'),
      installation: field('object', 'The integration installation (uuid)'),
      data: field('object', 'The resource'),
      actor: field('object', 'Who caused it: a user, the Sentry application or the integration'),
    },
    required: ['action', 'installation', 'data', 'actor'],
  }),
};
