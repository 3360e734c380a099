import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { renderExtra, type Deliverer, type DeliveryMessage } from '@hookwise/core';
import { githubFixture, createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, type GithubFixture } from '@hookwise/testing';
import plugin, { commentDeliverer, type CommentOptions } from '@hookwise/plugin-deliverer-github-comment';

// A stand-in for the client: records argv (one per line) and stdin of every call, then behaves as
// STANDIN_MODE says, printing what the real client prints in that situation. argv: pr|issue comment <n> --repo <r> ...
// plain-issue: the number is an issue, so `pr comment` does not find it; missing: neither command finds it.
// STANDIN_FAIL_AT=<k>: call k (from 0) also fails with a server error.
const STAND_IN = `#!/bin/sh
dir=$(dirname "$0")
n=$(ls "$dir" | grep -c '\\.args$')
printf '%s\\n' "$@" > "$dir/call-$n.args"
cat > "$dir/call-$n.stdin"
not_found() {
  if [ "$1" = pr ]; then echo "GraphQL: Could not resolve to a PullRequest with the number of $3. (repository.pullRequest)" >&2
  else echo "GraphQL: Could not resolve to an issue or pull request with the number of $3. (repository.issue)" >&2; fi
  exit 1
}
case "$STANDIN_MODE" in
  auth) echo 'To get started with GitHub CLI, please run:  gh auth login' >&2; exit 4 ;;
  forbidden) echo 'GraphQL: Resource not accessible by integration (addComment)' >&2; exit 1 ;;
  missing) not_found "$@" ;;
  plain-issue) if [ "$1" = pr ]; then not_found "$@"; fi ;;
  flaky) if [ "$n" = 0 ]; then echo 'HTTP 502: Bad Gateway (https://api.github.com/graphql)' >&2; exit 1; fi ;;
esac
if [ "$n" = "$STANDIN_FAIL_AT" ]; then echo 'HTTP 502: Bad Gateway (https://api.github.com/graphql)' >&2; exit 1; fi
if [ "$1" = pr ]; then page=pull; else page=issues; fi
echo "https://github.com/$5/$page/$3#issuecomment-$((1000 + n))"
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hookwise-gh-'));
  writeFileSync(path.join(dir, 'gh'), STAND_IN);
  chmodSync(path.join(dir, 'gh'), 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function setup(mode = 'ok', options: Partial<CommentOptions> = {}, env: NodeJS.ProcessEnv = {}) {
  const test = createTestPluginContext({ env: { PATH: `${dir}${path.delimiter}${process.env.PATH}`, STANDIN_MODE: mode, ...env } });
  const deliverer = commentDeliverer.create({ cli_path: 'gh', timeout_seconds: 10, ...options }, test.ctx) as Deliverer;
  return { ...test, deliverer };
}

const calls = () =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.args'))
    .sort()
    .map((f) => ({
      argv: readFileSync(path.join(dir, f), 'utf8').trimEnd().split('\n'),
      stdin: readFileSync(path.join(dir, f.replace('.args', '.stdin')), 'utf8'),
    }));

const target = { repo: 'octo-org/hello.world', pr_number: '42' };

// Routes as a config.yaml would write them, and the message the worker builds from one and a real payload.
const PR_ROUTE = { repo: '{repository.full_name}', pr_number: '{pull_request.number}' };
const ISSUE_ROUTE = { repo: '{repository.full_name}', pr_number: '{issue.number}' };
const payloadOf = (name: GithubFixture): Record<string, unknown> => JSON.parse(githubFixture(name).toString('utf8')) as Record<string, unknown>;
const routed = (text: string, event: string, templates: Record<string, string>, payload: unknown): DeliveryMessage => ({
  ...deliveryMessage(text, renderExtra(templates, payload)),
  event,
});
/** issue_comment.created as code host A sends it for a comment on pull request #1: the issue carries pull_request. */
function commentOnPullRequestPayload(): Record<string, unknown> {
  const payload = payloadOf('issue_comment.created');
  const issue = payload.issue as Record<string, unknown>;
  issue.pull_request = {
    url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/1',
    html_url: 'https://github.com/Codertocat/Hello-World/pull/1',
    diff_url: 'https://github.com/Codertocat/Hello-World/pull/1.diff',
    patch_url: 'https://github.com/Codertocat/Hello-World/pull/1.patch',
  };
  return payload;
}
const argvFor = (kind: string, n: string) => [kind, 'comment', n, '--repo', 'Codertocat/Hello-World', '--body-file', '-'];

describe('codehost_a_comment', () => {
  it('is contributed as a deliverer that needs no enabled flag, with cli_path defaulting to gh', () => {
    expect(plugin.contributes).toEqual([commentDeliverer]);
    expect(commentDeliverer.requiresEnabled).toBeUndefined();
    expect((commentDeliverer.optionsSchema as { properties: { cli_path: { default: string } } }).properties.cli_path.default).toBe('gh');
  });

  it('runs `gh pr comment <n> --repo <owner/name> --body-file -` with the answer on stdin', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('LGTM; `$(rm -rf /)` stays text', target), deliverOptions());
    expect(calls()).toEqual([{ argv: ['pr', 'comment', '42', '--repo', 'octo-org/hello.world', '--body-file', '-'], stdin: 'LGTM; `$(rm -rf /)` stays text' }]);
    expect(receipt).toEqual({ target: 'octo-org/hello.world#42', ids: ['https://github.com/octo-org/hello.world/pull/42#issuecomment-1000'] });
  });

  it.each([
    [{ pr_number: '42' }, /deliver_extra\.repo is missing/],
    [{ repo: 'a/b; rm -rf /', pr_number: '42' }, /must look like owner\/name/],
    [{ repo: 'a/b/c', pr_number: '42' }, /must look like owner\/name/],
    [{ repo: '../..', pr_number: '1' }, /must look like owner\/name/],
    [{ repo: 'a/b', pr_number: '{pull_request.number}' }, /positive integer/],
    [{ repo: 'a/b', pr_number: '0' }, /positive integer/],
    [{ repo: 'a/b', pr_number: '-3' }, /positive integer/],
    [{ repo: 'a/b' }, /deliver_extra\.pr_number is missing: the pull request or issue number/],
    [{ repo: 'a/b', pr_number: '1', kind: 'discussion' }, /deliver_extra\.kind must be one of auto, pr, issue, got "discussion"/],
  ])('refuses %j before starting a process', async (extra, message) => {
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', extra as Record<string, string>), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(err.message).toMatch(message);
    expect(calls()).toEqual([]);
  });

  it('splits a body over 65536 characters into several comments', async () => {
    const { deliverer } = setup();
    const text = `${'a'.repeat(40000)}\n\n${'b'.repeat(40000)}`;
    const receipt = await deliverer.deliver(deliveryMessage(text, target), deliverOptions());
    expect(calls().map((c) => c.stdin)).toEqual(['a'.repeat(40000), 'b'.repeat(40000)]);
    expect(receipt.ids).toHaveLength(2);
  });

  it('reports a missing client with the remedy, not retryable', async () => {
    const { deliverer } = setup('ok', { cli_path: 'gh-not-installed-anywhere' });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', target), deliverOptions()));
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/not found: install it.*PATH.*cli_path/);
  });

  it('reports a client that is not logged in as an auth problem with the remedy', async () => {
    const { deliverer } = setup('auth');
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', target), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message).toContain("run 'gh auth login'");
  });

  it('reports missing write access with the remedy', async () => {
    const { deliverer } = setup('forbidden');
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', target), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message).toContain('grant it write');
  });

  it('reports a number that is neither a pull request nor an issue as a bad target, after trying both', async () => {
    const { deliverer } = setup('missing');
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', target), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(err.message).toContain("'gh issue comment' on octo-org/hello.world#42 failed: GraphQL: Could not resolve to an issue or pull request");
    expect(calls().map((c) => c.argv.slice(0, 3))).toEqual([
      ['pr', 'comment', '42'],
      ['issue', 'comment', '42'],
    ]);
  });

  describe('pull request or issue', () => {
    it('comments on the issue with `gh issue comment` for an issues event', async () => {
      const { deliverer } = setup();
      const receipt = await deliverer.deliver(routed('Triaged: needs a repro', 'issues', ISSUE_ROUTE, payloadOf('issues.opened')), deliverOptions());
      expect(calls()).toEqual([{ argv: argvFor('issue', '1'), stdin: 'Triaged: needs a repro' }]);
      expect(receipt).toEqual({ target: 'Codertocat/Hello-World#1', ids: ['https://github.com/Codertocat/Hello-World/issues/1#issuecomment-1000'] });
    });

    it('still comments on the pull request with `gh pr comment` for a pull_request event', async () => {
      const { deliverer } = setup();
      const receipt = await deliverer.deliver(routed('LGTM', 'pull_request', PR_ROUTE, payloadOf('pull_request.opened')), deliverOptions());
      expect(calls()).toEqual([{ argv: argvFor('pr', '2'), stdin: 'LGTM' }]);
      expect(receipt.ids).toEqual(['https://github.com/Codertocat/Hello-World/pull/2#issuecomment-1000']);
    });

    it('comments with `gh pr comment` for an issue_comment event on a pull request', async () => {
      const { deliverer } = setup();
      const receipt = await deliverer.deliver(routed('Answered', 'issue_comment', ISSUE_ROUTE, commentOnPullRequestPayload()), deliverOptions());
      expect(calls()).toEqual([{ argv: argvFor('pr', '1'), stdin: 'Answered' }]);
      expect(receipt.ids).toEqual(['https://github.com/Codertocat/Hello-World/pull/1#issuecomment-1000']);
    });

    it('comments with `gh issue comment` for an issue_comment event on a plain issue, once gh says it is no pull request', async () => {
      const { deliverer, logs } = setup('plain-issue');
      const receipt = await deliverer.deliver(routed('Answered', 'issue_comment', ISSUE_ROUTE, payloadOf('issue_comment.created')), deliverOptions());
      expect(calls()).toEqual([
        { argv: argvFor('pr', '1'), stdin: 'Answered' },
        { argv: argvFor('issue', '1'), stdin: 'Answered' },
      ]);
      expect(receipt).toEqual({ target: 'Codertocat/Hello-World#1', ids: ['https://github.com/Codertocat/Hello-World/issues/1#issuecomment-1001'] });
      expect(logs.some((l) => l.includes('Codertocat/Hello-World#1 is not a pull request'))).toBe(true);
    });

    it('posts the remaining parts of a long answer where the first went, without asking again', async () => {
      const { deliverer } = setup('plain-issue');
      const text = `${'a'.repeat(40000)}\n\n${'b'.repeat(40000)}`;
      await deliverer.deliver(routed(text, 'issue_comment', ISSUE_ROUTE, payloadOf('issue_comment.created')), deliverOptions());
      expect(calls().map((c) => [c.argv[0], c.stdin[0], c.stdin.length])).toEqual([
        ['pr', 'a', 40000],
        ['issue', 'a', 40000],
        ['issue', 'b', 40000],
      ]);
    });

    it('on a retry after a failed part, posts only the rest, straight to the issue', async () => {
      const { deliverer } = setup('plain-issue', {}, { STANDIN_FAIL_AT: '2' });
      const msg = routed(`${'a'.repeat(40000)}\n\n${'b'.repeat(40000)}`, 'issue_comment', ISSUE_ROUTE, payloadOf('issue_comment.created'));
      const err = await rejectionOf(deliverer.deliver(msg, deliverOptions()));
      expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', true]);
      const receipt = await deliverer.deliver(msg, deliverOptions(2));
      expect(calls().map((c) => [c.argv[0], c.stdin[0]])).toEqual([
        ['pr', 'a'],
        ['issue', 'a'],
        ['issue', 'b'],
        ['issue', 'b'],
      ]);
      expect(receipt.ids).toEqual([
        'https://github.com/Codertocat/Hello-World/issues/1#issuecomment-1001',
        'https://github.com/Codertocat/Hello-World/issues/1#issuecomment-1003',
      ]);
    });

    it('follows an explicit deliver_extra.kind: issue on a pull_request event', async () => {
      const { deliverer } = setup();
      await deliverer.deliver(routed('hi', 'pull_request', { ...PR_ROUTE, kind: 'issue' }, payloadOf('pull_request.opened')), deliverOptions());
      expect(calls()).toEqual([{ argv: argvFor('issue', '2'), stdin: 'hi' }]);
    });

    it('with deliver_extra.kind: pr does not fall back to the issue, and says how to', async () => {
      const { deliverer } = setup('plain-issue');
      const err = await rejectionOf(
        deliverer.deliver(routed('hi', 'issue_comment', { ...ISSUE_ROUTE, kind: 'pr' }, payloadOf('issue_comment.created')), deliverOptions()),
      );
      expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
      expect(err.message).toContain('set deliver_extra.kind to issue or auto');
      expect(calls().map((c) => c.argv)).toEqual([argvFor('pr', '1')]);
    });

    it('refuses an issues event on a route whose pr_number names the pull request, before starting a process', async () => {
      const { deliverer } = setup();
      const err = await rejectionOf(deliverer.deliver(routed('hi', 'issues', PR_ROUTE, payloadOf('issues.opened')), deliverOptions()));
      expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
      expect(err.message).toContain('deliver_extra.pr_number must be a positive integer, got "{pull_request.number}"');
      expect(err.message).toContain('the payload lacks that key');
      expect(calls()).toEqual([]);
    });
  });

  it('retries a server error and then posts once', async () => {
    const { deliverer } = setup('flaky');
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', target), deliverOptions()));
    expect(err.retryable).toBe(true);
    const receipt = await deliverer.deliver(deliveryMessage('hi', target), deliverOptions(2));
    expect(calls()).toHaveLength(2);
    expect(receipt.ids).toEqual(['https://github.com/octo-org/hello.world/pull/42#issuecomment-1001']);
  });
});
