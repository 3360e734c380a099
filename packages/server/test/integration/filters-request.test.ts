// Filters that see the request (issue 36) over real HTTP with real GitHub fixtures: `headers.<name>` and `event`
// beside the payload's paths (in tests and in JSONata expressions), and the contains, missing, not and in_file
// tests; an in_file list is re-read when its file changes, and a broken in_file path refuses startup naming the route.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { githubFixture, signGithub, startTestGateway, type TestGateway } from '@hookwise/testing';
import { closeInFileLists, IN_FILE_POLL_MS } from '../../../gateway/src/filters/filter-tests';

const SECRET = 'it-is-a-test-secret-0123456789';
const opened = githubFixture('pull_request.opened');
const issueComment = githubFixture('issue_comment.created');

function config(route: Record<string, unknown>) {
  return {
    platforms: { webhook: { enabled: true, extra: { routes: { prs: { secret: SECRET, prompt: 'run {action}', ...route } } } } },
  };
}

function github(gw: TestGateway, body: Buffer, delivery: string, event = 'pull_request', extra: Record<string, string> = {}) {
  return gw.post('prs', body, {
    'x-hub-signature-256': signGithub(SECRET, body),
    'x-github-event': event,
    'x-github-delivery': delivery,
    'user-agent': 'GitHub-Hookshot/abc123',
    ...extra,
  });
}

const ignored = (event = 'pull_request') => ({ status: 'ignored', event, reason: 'filter' });
const lastFiltered = async (gw: TestGateway) => String((await gw.waitForLog('filtered out')).message);

describe('filters over the request', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
    closeInFileLists();
  });

  it('tests a header (lower-case name) and the event type beside the payload', async () => {
    gw = await startTestGateway({
      config: config({
        filter: [
          { path: 'headers.user-agent', matches: '^GitHub-Hookshot/' },
          { path: 'event', in: ['pull_request', 'issue_comment'] },
        ],
      }),
    });
    expect((await github(gw, opened, 'h-1')).status).toBe(202);
    expect((await github(gw, issueComment, 'h-2', 'issue_comment')).status).toBe(202);
    expect((await github(gw, githubFixture('push'), 'h-3', 'push')).body).toEqual(ignored('push'));
    expect(await lastFiltered(gw)).toContain('event is "push", not one of "pull_request", "issue_comment"');
    const other = await github(gw, opened, 'h-4', 'pull_request', { 'user-agent': 'curl/8.0' });
    expect(other.body).toEqual(ignored());
    expect(gw.logText()).toContain('headers.user-agent is "curl/8.0", which does not match');
  });

  it('never shows a signature header value: a filter sees it redacted', async () => {
    gw = await startTestGateway({ config: config({ filter: { path: 'headers.x-hub-signature-256', equals: 'sha256=nope' } }) });
    expect((await github(gw, opened, 's-1')).body).toEqual(ignored());
    const line = await lastFiltered(gw);
    expect(line).toContain('headers.x-hub-signature-256 is');
    expect(line).not.toContain(signGithub(SECRET, opened).slice(7, 20));
  });

  it('gives JSONata expressions headers and event beside the payload keys', async () => {
    gw = await startTestGateway({
      config: config({ filter: { expression: "event = 'pull_request' and $contains(headers.`user-agent`, 'Hookshot') and action = 'opened'" } }),
    });
    expect((await github(gw, opened, 'e-1')).status).toBe(202);
    expect((await github(gw, opened, 'e-2', 'pull_request', { 'user-agent': 'curl/8.0' })).body).toEqual(ignored());
    expect((await github(gw, issueComment, 'e-3', 'issue_comment')).body).toEqual(ignored('issue_comment'));
  });

  it('contains: a substring of a string, an element of a list', async () => {
    gw = await startTestGateway({
      config: config({
        filter: [
          { path: 'pull_request.title', contains: 'Update' },
          { path: 'pull_request.labels', missing: false },
        ],
      }),
    });
    expect((await github(gw, opened, 'c-1')).status).toBe(202);
    const retitled = JSON.parse(opened.toString());
    retitled.pull_request.title = 'Fix the build';
    expect((await github(gw, Buffer.from(JSON.stringify(retitled)), 'c-2')).body).toEqual(ignored());
    expect(await lastFiltered(gw)).toContain('pull_request.title is "Fix the build", which does not contain "Update"');
    await gw.stop();

    gw = await startTestGateway({ config: config({ filter: { path: 'pull_request.requested_reviewers', contains: 'octocat' } }) });
    const asked = JSON.parse(opened.toString());
    asked.pull_request.requested_reviewers = ['hubot', 'octocat'];
    expect((await github(gw, Buffer.from(JSON.stringify(asked)), 'c-3')).status).toBe(202);
    expect((await github(gw, opened, 'c-4')).body).toEqual(ignored());
  });

  it('missing: true passes only when the path is absent', async () => {
    gw = await startTestGateway({ config: config({ filter: { path: 'pull_request.merged_by.login', missing: true } }) });
    expect((await github(gw, opened, 'm-1')).status).toBe(202);
    const merged = JSON.parse(opened.toString());
    merged.pull_request.merged_by = { login: 'octocat' };
    expect((await github(gw, Buffer.from(JSON.stringify(merged)), 'm-2')).body).toEqual(ignored());
    expect(await lastFiltered(gw)).toContain('pull_request.merged_by.login is present, and the filter wants it missing');
  });

  it('not: {test} passes when its test fails, with the outer path or its own', async () => {
    gw = await startTestGateway({
      config: config({
        filter: [{ path: 'action', not: { equals: 'closed' } }, { not: { path: 'headers.x-github-event', equals: 'push' } }],
      }),
    });
    expect((await github(gw, opened, 'n-1')).status).toBe(202);
    const closed = JSON.parse(opened.toString());
    closed.action = 'closed';
    expect((await github(gw, Buffer.from(JSON.stringify(closed)), 'n-2')).body).toEqual(ignored());
    expect(await lastFiltered(gw)).toContain('action equals passed, and the filter wants it not to');
    expect((await github(gw, githubFixture('push'), 'n-3', 'push')).body).toEqual(ignored('push'));
  });

  it('in_file: one value per line, relative to the config dir, re-read when the file changes', async () => {
    gw = await startTestGateway({
      config: config({ filter: { path: 'sender.login', in_file: 'allowed-senders.txt' } }),
      files: { 'allowed-senders.txt': '# who may trigger the agent\nhubot\n\n' },
    });
    expect((await github(gw, opened, 'f-1')).body).toEqual(ignored());
    expect(await lastFiltered(gw)).toContain('sender.login is "Codertocat", not listed in "allowed-senders.txt"');
    writeFileSync(join(gw.configDir, 'allowed-senders.txt'), 'hubot\nCodertocat\n');
    // Polled every IN_FILE_POLL_MS; a loaded CI machine delays the poll, so the wait is generous (a fixed
    // reload time is the behaviour, not a latency goal).
    const deadline = Date.now() + IN_FILE_POLL_MS * 40;
    let status = 0;
    for (let n = 2; status !== 202 && Date.now() < deadline; n++) {
      await new Promise((r) => setTimeout(r, IN_FILE_POLL_MS));
      status = (await github(gw, opened, `f-${n}`)).status;
    }
    expect(status).toBe(202);
  });

  it('refuses startup naming the route when an in_file path cannot be read', async () => {
    await expect(startTestGateway({ config: config({ filter: { path: 'sender.login', not: { in_file: 'no-such-list.txt' } } }) })).rejects.toThrow(
      /route 'prs' filter\.not: in_file 'no-such-list\.txt' cannot be read .*no-such-list\.txt with one value per line/,
    );
  });
});
