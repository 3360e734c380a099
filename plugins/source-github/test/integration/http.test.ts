// GitHub over real HTTP: signatures made by @octokit/webhooks-methods, a real pull_request payload.
import { githubFixture, describeSourceOverHttp, runEsm } from '@hookwise/testing';

const secrets: [string, string] = ['github-new-secret-0123456789', 'github-old-secret-0123456789'];
const octokitSign = (secret: string, payload: Buffer) =>
  runEsm('@octokit/webhooks-methods', ['sign'], 'sign(args.secret, args.payload)', { secret, payload: payload.toString('utf8') });

describeSourceOverHttp('github', {
  source: 'github',
  secrets,
  body: githubFixture('pull_request.opened').toString('utf8'),
  event: 'pull_request',
  sign: ({ body, key, deliveryId }) => ({
    'X-Hub-Signature-256': octokitSign(key === 'wrong' ? 'not-the-route-secret-0123' : secrets[key], body),
    'X-GitHub-Event': 'pull_request',
    'X-GitHub-Delivery': deliveryId,
  }),
  // Another sender's style: GitLab's token header with the route's own secret.
  otherStyle: (_body, [secret]) => ({ 'X-Gitlab-Token': secret, 'X-Gitlab-Event': 'Push Hook' }),
});
