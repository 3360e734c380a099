// Over-HTTP conformance of the Sentry source: a real gateway with a route pinned to `source: sentry`, requests
// signed the way Sentry's integration platform signs them. No stale-timestamp case: Sentry signs no timestamp.
import { createHmac } from 'node:crypto';
import { describeSourceOverHttp } from '@hookwise/testing';
import { COMMENT_CREATED } from '../payload-samples';

const SECRETS: [string, string] = ['sentry-client-secret-new', 'sentry-client-secret-old'];

describeSourceOverHttp('Sentry integration platform', {
  source: 'sentry',
  secrets: SECRETS,
  body: COMMENT_CREATED,
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
