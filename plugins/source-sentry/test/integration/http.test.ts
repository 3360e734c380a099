// Over-HTTP conformance of the Sentry source: a real gateway with a route pinned to `source: sentry`, requests
// signed the way Sentry's integration platform signs them. No stale-timestamp case: Sentry signs no timestamp.
import { createHmac } from 'node:crypto';
import { describeSourceOverHttp } from '@hookwise/testing';

const SECRETS: [string, string] = ['sentry-client-secret-new', 'sentry-client-secret-old'];

describeSourceOverHttp('Sentry integration platform', {
  source: 'sentry',
  secrets: SECRETS,
  // The example on Sentry's "Comments" webhook page, serialised as Sentry sends it (Python json.dumps).
  body: '{"action": "created", "installation": {"uuid": "eac5a0ae-60ec-418f-9318-46dc5e7e52ec"}, "data": {"comment": "adding a comment", "project_slug": "sentry", "comment_id": 1234, "issue_id": 100, "timestamp": "2022-03-02T21:51:44.118160Z"}, "actor": {"type": "user", "id": 1, "name": "colleen"}}',
  event: 'comment.created',
  sign: ({ body, key, deliveryId, timestamp }) => ({
    'Request-ID': deliveryId,
    'Sentry-Hook-Resource': 'comment',
    'Sentry-Hook-Timestamp': String(timestamp),
    'Sentry-Hook-Signature': createHmac('sha256', key === 'wrong' ? 'not-the-client-secret' : SECRETS[key])
      .update(body)
      .digest('hex'),
  }),
});
