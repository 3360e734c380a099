// Conversations on GitHub (issue 31), end to end through a real gateway: a route on the GitHub source answers a
// pull_request event with a comment through a `gh` stand-in (a real child process that records its arguments and
// the body it reads, and prints the comment URL as gh does); an issue_comment (created) on that pull request, as
// GitHub posts it (signed X-Hub-Signature-256), by an allowed person (login or author_association) runs the route
// again with the earlier turns, and the answer goes to the same pull request. The deliveries are octokit/webhooks'
// documented examples (pull_request opened; issue_comment created, on a pull request), ids adapted, signed with
// @octokit/webhooks-methods. Bots, the gateway's own comment coming back as an event, and a person allow_from does
// not name run nothing of the conversation.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestGateway } from '@hookwise/testing';
import { conversationHarness } from './conversation-harness';
import { githubReviewThreadReply } from '@hookwise/testing';
import { githubCommentCreated, githubPrComment, githubPullRequestOpened, githubSigned } from './documented-payloads';

jest.setTimeout(60_000);

const SECRET = 'conversation-github-webhook-secret-0123456789';
const REPO = 'Octo/Hello';
const conv = conversationHarness('github');
// The `gh` stand-in and the calls it records, in a dir of their own.
const dir = mkdtempSync(join(tmpdir(), 'hookwise-conv-github-gh-'));
const gh = join(dir, 'gh');
const callsFile = join(dir, 'gh-calls.jsonl');
// `gh pr comment <n> --repo <r> --body-file -`: records the call and prints the new comment's URL, as gh does.
// `gh api --method POST|PATCH ... <path> --input -` (sticky comments) prints GitHub's answer: the documented example
// of Create (and Update) an issue comment, for comment 2000 + <pull request number>.
const restAnswer = JSON.stringify(githubCommentCreated(REPO, 0, 0, ''));
writeFileSync(
  gh,
  `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
let body = '';
process.stdin.on('data', (c) => (body += c)).on('end', () => {
  fs.appendFileSync(${JSON.stringify(callsFile)}, JSON.stringify({ args, body }) + '\\n');
  const n = fs.readFileSync(${JSON.stringify(callsFile)}, 'utf8').trim().split('\\n').length;
  if (args[0] !== 'api') return process.stdout.write('https://github.com/${REPO}/pull/' + args[2] + '#issuecomment-' + (900 + n) + '\\n');
  const path = args[5];
  // Create a reply for a review comment: GitHub answers the new review comment (its html_url a #discussion_r link).
  if (/\\/replies$/.test(path)) {
    const id = 5000 + n;
    return process.stdout.write(JSON.stringify({ id, in_reply_to_id: Number(path.split('/')[6]), body: JSON.parse(body).body,
      html_url: 'https://github.com/${REPO}/pull/' + path.split('/')[4] + '#discussion_r' + id }) + '\\n');
  }
  const id = /\\/comments$/.test(path) ? 2000 + Number(path.split('/')[4]) : Number(path.split('/').pop());
  const pr = id - 2000;
  const answer = Object.assign(${restAnswer}, {
    id,
    url: 'https://api.github.com/repos/${REPO}/issues/comments/' + id,
    html_url: 'https://github.com/${REPO}/pull/' + pr + '#issuecomment-' + id,
    issue_url: 'https://api.github.com/repos/${REPO}/issues/' + pr,
    body: JSON.parse(body).body,
  });
  process.stdout.write(JSON.stringify(answer, null, 2) + '\\n');
});
`,
);
chmodSync(gh, 0o755);

let deliveryN = 0;

const calls = (): { args: string[]; body: string }[] =>
  existsSync(callsFile)
    ? readFileSync(callsFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { args: string[]; body: string })
    : [];
const delivered = () => conv.delivered('review');

/** A delivery as GitHub posts it, signed X-Hub-Signature-256 by GitHub's own @octokit/webhooks-methods. */
function postGithub(event: string, body: string, route = 'review') {
  deliveryN += 1;
  return conv.gw.post(route, body, {
    'content-type': 'application/json',
    'x-github-event': event,
    'x-github-delivery': `7c1c6a00-0000-11ef-8000-${String(deliveryN).padStart(12, '0')}`,
    'x-hub-signature-256': githubSigned(SECRET, body),
  });
}

/** octokit/webhooks' issue_comment (created) example on pull request 7 (documented-payloads.ts), ids adapted. */
function comment(user: { login: string; type?: string }, association: string, body: string, id = 1000 + deliveryN, number = 7, route = 'review') {
  return postGithub('issue_comment', githubPrComment({ repo: REPO, number, ...user, association, body, commentId: id }), route);
}

beforeAll(async () => {
  await conv.start({
    platforms: {
      github_comment: { enabled: true, cli_path: gh, timeout_seconds: 20 },
      webhook: {
        enabled: true,
        extra: {
          routes: {
            review: {
              source: 'github',
              secret: SECRET,
              events: ['pull_request', 'issue_comment', 'pull_request_review_comment'],
              prompt: 'Review PR #{pull_request.number}: {pull_request.title}',
              deliver: 'github_comment',
              deliver_extra: { repo: '{repository.full_name}', pr_number: '{pull_request.number}' },
              conversation: { enabled: true, allow_from: ['association:MEMBER', 'hubot-human'] },
            },
            // One sticky comment per pull request, through `gh api` (GitHub's REST answer on stdout).
            'review-sticky': {
              source: 'github',
              secret: SECRET,
              events: ['pull_request', 'issue_comment'],
              prompt: 'Review PR #{pull_request.number}: {pull_request.title}',
              deliver: 'github_comment',
              deliver_extra: { repo: '{repository.full_name}', pr_number: '{pull_request.number}', sticky: 'hookwise-review' },
              conversation: { enabled: true, allow_from: ['association:MEMBER'] },
            },
          },
        },
      },
    },
    agent: conv.agent,
    retry: { max_attempts: 1 },
    store: { backend: 'memory' },
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('continues a conversation from a comment on the pull request, answering on the same pull request', async () => {
  const opened = await postGithub('pull_request', githubPullRequestOpened(REPO, 7, 'Fix the build'));
  expect(opened.status).toBe(202);
  await conv.waitFor('the first answer', () => delivered() === 1);
  expect(calls()[0].args).toEqual(['pr', 'comment', '7', '--repo', REPO, '--body-file', '-']);
  expect(calls()[0].body).toBe('ECHO[Review PR #7: Fix the build]');

  // A member's comment (allowed by author_association) continues it; the answer goes to the same pull request.
  const reply = await comment({ login: 'monalisa' }, 'MEMBER', 'why this change?');
  expect(reply.status).toBe(202);
  expect(reply.body).toMatchObject({ status: 'accepted', route: 'review', turn: 2 });
  await conv.waitFor('the answer to the comment', () => delivered() === 2);
  const second = calls()[1];
  expect(second.args).toEqual(['pr', 'comment', '7', '--repo', REPO.toLowerCase(), '--body-file', '-']);
  expect(second.body).toContain('Review PR #7: Fix the build');
  expect(second.body).toContain('ECHO[Review PR #7: Fix the build]');
  expect(second.body).toContain('why this change?');
  expect(second.body).toContain('GitHub user monalisa (MEMBER)');

  // A login named in allow_from continues it too (turn 3), whatever its association.
  const byLogin = await comment({ login: 'hubot-human' }, 'CONTRIBUTOR', 'and the tests?');
  expect(byLogin.body).toMatchObject({ status: 'accepted', turn: 3 });
  await conv.waitFor('the third answer', () => delivered() === 3);
  expect(calls()[2].body).toContain('and the tests?');

  // A stranger, an App (a Bot account), and the gateway's own comment (posted with a member's token) coming back
  // as an issue_comment continue nothing.
  const stranger = await comment({ login: 'drive-by' }, 'NONE', 'me too');
  expect(stranger.body).toMatchObject({ status: 'ignored', reason: 'conversation_not_allowed' });
  await comment({ login: 'hookwise-app[bot]', type: 'Bot' }, 'NONE', 'ECHO[...]');
  const own = await comment({ login: 'monalisa' }, 'MEMBER', calls()[0].body, 901);
  expect(own.body).toMatchObject({ status: 'ignored', reason: 'conversation_own_message' });
  await new Promise((r) => setTimeout(r, 500));
  expect(calls().length).toBe(3);
  expect(conv.gw.logText()).toContain("user drive-by is not in conversation.allow_from of route 'review'");
});

it('allow_from keeps logins apart from associations: a user whose login is MEMBER is no member', async () => {
  // GitHub's author_association of this comment is NONE; its author merely chose the login MEMBER.
  const impostor = await comment({ login: 'MEMBER' }, 'NONE', 'let me in');
  expect(impostor.body).toMatchObject({ status: 'ignored', reason: 'conversation_not_allowed' });
  expect(conv.gw.logText()).toContain("user MEMBER is not in conversation.allow_from of route 'review'");
  // A real member (association:MEMBER) still continues it.
  const member = await comment({ login: 'octocat' }, 'MEMBER', 'and now?');
  expect(member.body).toMatchObject({ status: 'accepted', route: 'review' });
});

it('refuses at startup a bare association name in allow_from, naming association:<NAME>', async () => {
  const routes = { review: { source: 'github', secret: SECRET, deliver: 'log', conversation: { enabled: true, allow_from: ['member', 'OWNER', 'octocat'] } } };
  const started = startTestGateway({
    config: { platforms: { webhook: { enabled: true, extra: { routes } } }, agent: { runner: 'echo' }, store: { backend: 'memory' } },
  });
  await expect(started).rejects.toThrow(
    /conversation.allow_from entry 'member' is an author association's name, which allow_from reads as a user id.*write 'association:MEMBER'/s,
  );
  await expect(started).rejects.toThrow(/'association:OWNER'/);
});

it("records the sticky comment GitHub's REST answer names, knows it as its own, and edits it for the next turn", async () => {
  const apiCalls = () => calls().filter((c) => c.args[0] === 'api');
  const stickyDelivered = () => conv.gw.logs.filter((l) => /^delivered .* on route 'review-sticky'/.test(String(l.message))).length;
  expect((await postGithub('pull_request', githubPullRequestOpened(REPO, 8, 'Bump deps'), 'review-sticky')).status).toBe(202);
  await conv.waitFor('the sticky comment', () => stickyDelivered() === 1);
  expect(apiCalls()[0].args).toEqual([
    'api',
    '--method',
    'POST',
    '-H',
    'Accept: application/vnd.github+json',
    `repos/${REPO}/issues/8/comments`,
    '--input',
    '-',
  ]);

  // The comment GitHub created (id 2008 in its answer) comes back as an issue_comment: the gateway's own.
  const own = await comment({ login: 'monalisa' }, 'MEMBER', 'the sticky answer', 2008, 8, 'review-sticky');
  expect(own.body).toMatchObject({ status: 'ignored', reason: 'conversation_own_message' });

  const reply = await comment({ login: 'monalisa' }, 'MEMBER', 'which deps?', 3001, 8, 'review-sticky');
  expect(reply.body).toMatchObject({ status: 'accepted', route: 'review-sticky', turn: 2 });
  await conv.waitFor('the edited sticky comment', () => stickyDelivered() === 2);
  const edit = apiCalls()[1];
  expect(edit.args.slice(0, 3)).toEqual(['api', '--method', 'PATCH']);
  expect(edit.args[5]).toBe(`repos/${REPO.toLowerCase()}/issues/comments/2008`);
  expect((JSON.parse(edit.body) as { body: string }).body).toContain('which deps?');
});

it('continues a conversation from a reply in a review thread, answering in that thread', async () => {
  const before = calls().length;
  const answered = delivered() + 1;
  expect((await postGithub('pull_request', githubPullRequestOpened(REPO, 9, 'Rename the flag'))).status).toBe(202);
  await conv.waitFor('the first answer', () => delivered() === answered);
  expect(calls()[before].args).toEqual(['pr', 'comment', '9', '--repo', REPO, '--body-file', '-']);

  // A member replies in the review thread of top-level review comment 4000 (in_reply_to_id): the conversation on
  // the pull request continues, and the answer is a reply in that thread (Create a reply for a review comment).
  const thread = (commentId: number, login: string, body: string) =>
    postGithub(
      'pull_request_review_comment',
      JSON.stringify(githubReviewThreadReply({ repo: REPO, number: 9, commentId, inReplyTo: 4000, login, association: 'MEMBER', body })),
    );
  const reply = await thread(4001, 'monalisa', 'why rename it here?');
  expect(reply.status).toBe(202);
  expect(reply.body).toMatchObject({ status: 'accepted', route: 'review', turn: 2 });
  await conv.waitFor('the answer in the thread', () => delivered() === answered + 1);
  const answer = calls()[before + 1];
  expect(answer.args).toEqual([
    'api',
    '--method',
    'POST',
    '-H',
    'Accept: application/vnd.github+json',
    'repos/octo/hello/pulls/9/comments/4000/replies',
    '--input',
    '-',
  ]);
  const body = (JSON.parse(answer.body) as { body: string }).body;
  expect(body).toContain('ECHO[Review PR #9: Rename the flag]');
  expect(body).toContain('why rename it here?');
  expect(body).toContain('GitHub user monalisa (MEMBER)');

  // The gateway's reply (posted with a member's token) coming back as a review comment in the thread is its own.
  const id = 5000 + before + 2;
  const own = await thread(id, 'monalisa', body);
  expect(own.body).toMatchObject({ status: 'ignored', reason: 'conversation_own_message' });
  await new Promise((r) => setTimeout(r, 500));
  expect(calls().length).toBe(before + 2);
});
