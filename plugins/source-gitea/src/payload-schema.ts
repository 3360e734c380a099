// What Gitea and Forgejo post (docs.gitea.com, "Webhooks"): every payload, and pull request events.
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, listOf, openObject } from '@hookwise/kit/source';

const DOCS = 'https://docs.gitea.com/usage/webhooks';
const common = { repository: field('object'), sender: field('object', 'Who triggered the event') };
const pullRequest = openObject({
  description: 'A Gitea pull request event (opened, synchronized, closed, ...).',
  docs: DOCS,
  properties: { action: field('string'), number: field('integer'), pull_request: field('object'), ...common },
  required: ['action', 'number', 'pull_request'],
});

export const giteaPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A Gitea (or Forgejo) webhook payload (the event type is the X-Gitea-Event header).',
    docs: DOCS,
    properties: {
      action: field('string'),
      ref: field('string'),
      before: field('string'),
      after: field('string'),
      commits: listOf(field('object')),
      pusher: field('object'),
      issue: field('object'),
      comment: field('object'),
      pull_request: field('object'),
      ...common,
    },
  }),
  events: { pull_request: pullRequest, pull_request_sync: pullRequest },
};
