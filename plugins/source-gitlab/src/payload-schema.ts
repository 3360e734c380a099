// What GitLab posts (docs.gitlab.com, "Webhook events"): every payload, and merge request and comment events, keyed
// by the X-Gitlab-Event header the source reports as the event type.
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, listOf, openObject } from '@hookwise/kit/source';

const DOCS = 'https://docs.gitlab.com/user/project/integrations/webhook_events/';
const common = {
  object_kind: field('string', 'The kind of event (push, merge_request, note, pipeline, ...)'),
  event_type: field('string'),
  user: field('object', 'Who triggered the event'),
  project: field('object'),
  repository: field('object'),
  object_attributes: field('object', 'The object the event is about'),
};

export const gitlabPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A GitLab webhook payload (the event type is the X-Gitlab-Event header, e.g. "Merge Request Hook").',
    docs: DOCS,
    properties: common,
  }),
  events: {
    'Merge Request Hook': openObject({
      description: 'A GitLab merge request event: a merge request created, updated, merged, closed, ...',
      docs: `${DOCS}#merge-request-events`,
      properties: { ...common, labels: listOf(field('object')), changes: field('object'), assignees: listOf(field('object')) },
      required: ['object_kind', 'object_attributes'],
    }),
    'Note Hook': openObject({
      description: 'A GitLab comment event: a comment on a commit, merge request, issue or snippet.',
      docs: `${DOCS}#comment-events`,
      properties: { ...common, merge_request: field('object'), issue: field('object'), commit: field('object'), snippet: field('object') },
      required: ['object_kind', 'object_attributes'],
    }),
  },
};
