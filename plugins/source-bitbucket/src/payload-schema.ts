// What Bitbucket Cloud posts (support.atlassian.com, "Event payloads"): every payload, and pull request creation.
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, openObject } from '@hookwise/kit/source';

const DOCS = 'https://support.atlassian.com/bitbucket-cloud/docs/event-payloads/';
const common = { actor: field('object', 'Who caused the event'), repository: field('object') };

export const bitbucketPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Bitbucket Cloud webhook payload (the event type is the X-Event-Key header, e.g. repo:push).',
    docs: DOCS,
    properties: { ...common, push: field('object'), pullrequest: field('object'), comment: field('object'), approval: field('object'), issue: field('object') },
  }),
  events: {
    'pullrequest:created': openObject({
      description: 'A Bitbucket Cloud pullrequest:created event.',
      docs: `${DOCS}#Pull-request-events`,
      properties: { ...common, pullrequest: field('object') },
      required: ['actor', 'pullrequest', 'repository'],
    }),
  },
};
