import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Deliverer } from '@hookwise/core';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf } from '@hookwise/testing';
import plugin, { commentDeliverer, type CommentOptions } from '@hookwise/plugin-deliverer-codehost-a-comment';

// A stand-in for the client: records argv (one per line) and stdin of every call, then behaves as
// STANDIN_MODE says, printing what the real client prints in that situation.
const STAND_IN = `#!/bin/sh
dir=$(dirname "$0")
n=$(ls "$dir" | grep -c '\\.args$')
printf '%s\\n' "$@" > "$dir/call-$n.args"
cat > "$dir/call-$n.stdin"
case "$STANDIN_MODE" in
  auth) echo 'To get started with GitHub CLI, please run:  gh auth login' >&2; exit 4 ;;
  forbidden) echo 'GraphQL: Resource not accessible by integration (addComment)' >&2; exit 1 ;;
  missing) echo "GraphQL: Could not resolve to a PullRequest with the number of $3. (repository.pullRequest)" >&2; exit 1 ;;
  flaky) if [ "$n" = 0 ]; then echo 'HTTP 502: Bad Gateway (https://api.github.com/graphql)' >&2; exit 1; fi ;;
esac
echo "https://github.com/$5/pull/$3#issuecomment-$((1000 + n))"
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hookwise-gh-'));
  writeFileSync(path.join(dir, 'gh'), STAND_IN);
  chmodSync(path.join(dir, 'gh'), 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function setup(mode = 'ok', options: Partial<CommentOptions> = {}) {
  const test = createTestPluginContext({ env: { PATH: `${dir}${path.delimiter}${process.env.PATH}`, STANDIN_MODE: mode } });
  const deliverer = commentDeliverer.create({ cli_path: 'gh', timeout_seconds: 10, ...options }, test.ctx) as Deliverer;
  return { ...test, deliverer };
}

const calls = () =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.args'))
    .sort()
    .map((f) => ({ argv: readFileSync(path.join(dir, f), 'utf8').trimEnd().split('\n'), stdin: readFileSync(path.join(dir, f.replace('.args', '.stdin')), 'utf8') }));

const target = { repo: 'octo-org/hello.world', pr_number: '42' };

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

  it('reports an unknown pull request as a bad target', async () => {
    const { deliverer } = setup('missing');
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', target), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
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
