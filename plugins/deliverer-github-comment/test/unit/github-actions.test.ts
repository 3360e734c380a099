// The github.* route actions this plugin contributes, on their own: the target each takes from GitHub's payloads,
// each action's own checks of a call (allowed labels, review verdicts, malformed input) and the schemas it offers,
// and which client acts (the App's, else GH_TOKEN's from the gateway's environment, registered for redaction).
// The gateway's side (max per event, unknown actions, retries, records) is tested in packages/gateway.
import { createTestPluginContext } from '@hookwise/testing';
import plugin, { createCommentDeliverer, githubAddLabels, githubComment, githubReview, githubTargetOf } from '@hookwise/plugin-deliverer-github-comment';

describe('the target of an event', () => {
  it('is the issue, or the pull request with its head commit, and the installation the payload names', () => {
    expect(githubTargetOf({ repository: { full_name: 'octo/app' }, issue: { number: 7 } })).toEqual({ owner: 'octo', repo: 'app', number: 7 });
    expect(githubTargetOf({ repository: { full_name: 'octo/app' }, pull_request: { number: 12, head: { sha: 'abc' } }, installation: { id: 99 } })).toEqual({
      owner: 'octo',
      repo: 'app',
      number: 12,
      headSha: 'abc',
      installationId: '99',
    });
  });

  it('is refused, for good, for an event about no issue or pull request', () => {
    expect(() => githubTargetOf({ repository: { full_name: 'octo/app' }, ref: 'main' })).toThrow(/not about a GitHub issue or pull request/);
  });
});

describe('contributed by github_comment', () => {
  it('lists github.comment, github.add_labels and github.review in that order', () => {
    const deliverer = plugin.contributes.find((c) => c.kind === 'deliverer' && c.id === 'github_comment') as { actions?: Array<{ name: string }> };
    expect(deliverer.actions?.map((a) => a.name)).toEqual(['github.comment', 'github.add_labels', 'github.review']);
  });
});

describe('checks of a call', () => {
  it('github.comment needs a non-empty body, and keeps nothing else', () => {
    expect(githubComment.check!({ body: 'hi', extra: 1 }, {})).toEqual({ ok: true, input: { body: 'hi' } });
    expect(githubComment.check!({ body: '  ' }, {})).toEqual({ ok: false, reason: 'github.comment needs a non-empty body' });
  });

  it('github.add_labels takes allowed labels once each and names the refused ones', () => {
    const allow = { allow: ['bug', 'needs-triage'] };
    expect(githubAddLabels.check!({ labels: ['bug', 'bug', 'needs-triage'] }, allow)).toEqual({ ok: true, input: { labels: ['bug', 'needs-triage'] } });
    expect(githubAddLabels.check!({ labels: ['bug', 'wontfix'] }, allow)).toEqual({
      ok: false,
      reason: 'label(s) not allowed on this route: wontfix; allowed: bug, needs-triage',
    });
    expect(githubAddLabels.check!({ labels: ['anything'] }, {}).ok).toBe(true);
    expect(githubAddLabels.inputSchema).toBeInstanceOf(Function);
    expect((githubAddLabels.inputSchema as (o: object) => unknown)(allow)).toMatchObject({
      properties: { labels: { items: { enum: ['bug', 'needs-triage'] } } },
    });
  });

  it('github.review allows COMMENT unless the route lists verdicts, and checks every line comment', () => {
    expect(githubReview.check!({ body: 'x', event: 'REQUEST_CHANGES' }, {})).toEqual({
      ok: false,
      reason: "review verdict 'REQUEST_CHANGES' is not allowed on this route; allowed: COMMENT",
    });
    expect(githubReview.check!({ body: 'x', comments: [{ path: 'a.ts', line: 2, body: 'y' }] }, { events: ['COMMENT'] })).toEqual({
      ok: true,
      input: { body: 'x', event: 'COMMENT', comments: [{ path: 'a.ts', line: 2, body: 'y' }] },
    });
    expect(githubReview.check!({ body: 'x', comments: [{ path: 'a.ts', line: 0, body: 'y' }] }, {})).toEqual({
      ok: false,
      reason: 'github.review comment 1 needs path (a file), line (a positive whole number) and body',
    });
  });
});

describe('the client the actions act with', () => {
  it('without an App: GH_TOKEN of the gateway environment, as a Bearer token, registered for redaction', () => {
    const { ctx, redacted } = createTestPluginContext({ env: { GH_TOKEN: 'ghp_actions_0123456789', GITHUB_API_URL: 'https://ghe.example/api/v3/' } });
    const deliverer = createCommentDeliverer({ cli_path: 'gh', timeout_seconds: 5 }, ctx);
    expect(deliverer.actionsClient).toMatchObject({ mode: 'token', apiBase: 'https://ghe.example/api/v3' });
    expect(redacted).toContain('ghp_actions_0123456789');
  });

  it('without an App or a token: none (a call fails saying what to set)', async () => {
    const { ctx } = createTestPluginContext({ env: {} });
    const deliverer = createCommentDeliverer({ cli_path: 'gh', timeout_seconds: 5 }, ctx);
    expect(deliverer.actionsClient).toBeUndefined();
    const context = {
      deliverer,
      payload: { repository: { full_name: 'octo/app' }, issue: { number: 7 } },
      options: {},
      signal: new AbortController().signal,
      attempt: 1,
      route: 'triage',
      deliveryId: 'd-1',
    };
    await expect(githubComment.run({ body: 'hi' }, context)).rejects.toThrow(/no GitHub credentials for the github actions: set GH_TOKEN/);
  });
});
