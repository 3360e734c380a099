// What GitHub posts (docs.github.com, "Webhook events and payloads"): every payload, and the common event types.
import type { SourcePayloadSchema } from '@hookwise/core';
import { field, listOf, openObject } from '@hookwise/kit/source';

const DOCS = 'https://docs.github.com/en/webhooks/webhook-events-and-payloads';
const sender = field('object', 'The user that triggered the event');
const repository = field('object', 'The repository where the event occurred');
const common = {
  sender,
  repository,
  organization: field('object', 'The organization, for an event in one'),
  installation: field('object', 'The GitHub App installation, for an App'),
  enterprise: field('object', 'The enterprise, for an event in one'),
};

export const githubPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: 'A GitHub webhook payload (the event type is the X-GitHub-Event header).',
    docs: DOCS,
    properties: { action: field('string', 'The activity that triggered the event, for events that have several'), ...common },
  }),
  events: {
    push: openObject({
      description: 'A GitHub push event: commits pushed to a branch or a tag.',
      docs: `${DOCS}#push`,
      properties: {
        ref: field('string', 'The full git ref pushed (refs/heads/main)'),
        before: field('string', 'The SHA of the most recent commit on ref before the push'),
        after: field('string', 'The SHA of the most recent commit on ref after the push'),
        created: field('boolean'),
        deleted: field('boolean'),
        forced: field('boolean'),
        base_ref: field(['string', 'null']),
        compare: field('string', 'URL comparing the before and after commits'),
        commits: listOf(field('object'), 'The pushed commits (at most 2048)'),
        head_commit: field(['object', 'null']),
        pusher: field('object', 'Who pushed'),
        ...common,
      },
      required: ['ref', 'before', 'after', 'commits', 'pusher', 'repository'],
    }),
    pull_request: openObject({
      description: 'A GitHub pull_request event: activity on a pull request (opened, synchronize, closed, ...).',
      docs: `${DOCS}#pull_request`,
      properties: { action: field('string'), number: field('integer', 'The pull request number'), pull_request: field('object'), ...common },
      required: ['action', 'number', 'pull_request', 'repository', 'sender'],
    }),
    issues: openObject({
      description: 'A GitHub issues event: activity on an issue.',
      docs: `${DOCS}#issues`,
      properties: { action: field('string'), issue: field('object'), ...common },
      required: ['action', 'issue', 'repository', 'sender'],
    }),
    issue_comment: openObject({
      description: 'A GitHub issue_comment event: a comment on an issue or a pull request.',
      docs: `${DOCS}#issue_comment`,
      properties: { action: field('string'), issue: field('object'), comment: field('object'), ...common },
      required: ['action', 'issue', 'comment', 'repository', 'sender'],
    }),
    workflow_run: openObject({
      description: 'A GitHub workflow_run event: a GitHub Actions workflow run requested, in progress or completed.',
      docs: `${DOCS}#workflow_run`,
      properties: { action: field('string'), workflow_run: field('object'), workflow: field(['object', 'null']), ...common },
      required: ['action', 'workflow_run', 'repository', 'sender'],
    }),
    ping: openObject({
      description: 'A GitHub ping event: sent when a webhook is created.',
      docs: `${DOCS}#ping`,
      properties: { zen: field('string'), hook_id: field('integer'), hook: field('object'), ...common },
      required: ['zen'],
    }),
  },
};
