// Route actions end to end (issue 30): a real gateway runs the openai runner against a local Chat Completions
// stand-in whose model calls the route's actions, offered as MCP tools on the run's job channel: labels it may
// add (done on a GitHub stand-in that records the exact REST requests), a label it may not (refused, the reason
// read by the model), a message to an allowed destination (the log deliverer), and a comment that GitHub first
// answers 502 (retried). The job records every call with its outcome; `deliveries show` lists them.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startRecordingServer, startTestGateway, type RecordingServer, type TestGateway } from '@hookwise/testing';
import { final, startChatServer, toolCalls, type ChatServer, scriptedAgentLines, adminHeaders } from '../chat-server';

jest.setTimeout(60_000);

const REPO = resolve(__dirname, '../../../..');
const SECRET = 'actions-route-secret-0123456789';
const GH_TOKEN = 'ghs_actions_test_token_0123456789';

let dir: string;
let chat: ChatServer;
let github: RecordingServer;
let running: TestGateway | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-actions-'));
  let comments = 0;
  github = await startRecordingServer((req) => {
    if (req.path.endsWith('/labels')) return { status: 200, json: ((req.json as { labels: string[] }).labels ?? []).map((name) => ({ name })) };
    if (req.path.endsWith('/comments')) {
      comments += 1;
      if (comments === 1) return { status: 502, json: { message: 'Server Error' } };
      return { status: 201, json: { id: 42, html_url: 'https://github.example/octo/app/issues/7#issuecomment-42' } };
    }
    return { status: 404, json: { message: 'Not Found' } };
  });
  chat = await startChatServer([
    toolCalls([
      { id: 'c_ok', name: 'hookwise__github_add_labels', args: { labels: ['bug'] } },
      { id: 'c_no', name: 'hookwise__github_add_labels', args: { labels: ['wontfix'] } },
      { id: 'c_msg', name: 'hookwise__message', args: { to: 'log', text: 'on-call: issue 7 looks like a crash' } },
      { id: 'c_com', name: 'hookwise__github_comment', args: { body: 'Thanks, triaged as a bug.' } },
    ]),
    final('Triaged.'),
  ]);
  running = await startTestGateway({
    configDir: dir,
    config: [
      'platforms:',
      '  webhook:',
      '    enabled: true',
      '    extra:',
      '      host: 127.0.0.1',
      '      routes:',
      '        triage:',
      `          secret: ${SECRET}`,
      '          prompt: "Triage issue {issue.number}"',
      '          deliver: none',
      '          actions:',
      '            github.add_labels: { allow: [bug, needs-triage], max: 3 }',
      '            github.comment: {}',
      '            message: { to: [log] }',
      ...scriptedAgentLines(chat, 'ACTIONS_KEY'),
      // SQLite (the default store): `deliveries show` reads the job from it.
      '',
    ].join('\n'),
    env: { PATH: process.env.PATH, ACTIONS_KEY: 'sk-actions-key', GH_TOKEN, GITHUB_API_URL: github.url },
    pollMs: 50,
  });
});

afterAll(async () => {
  await running?.stop();
  await chat?.close();
  await github?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface StoredAction {
  index: number;
  action: string;
  status: string;
  attempts: number;
  reason?: string;
  receipt?: unknown;
}

it('the agent acts through the route actions: allowed calls done, a refused one explained, a 502 retried, all recorded', async () => {
  const body = JSON.stringify({ action: 'opened', issue: { number: 7 }, repository: { full_name: 'octo/app' } });
  const res = await fetch(`${running!.url}/webhooks/triage`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': createHmac('sha256', SECRET).update(body).digest('hex'), 'x-request-id': 'act-1' },
    body,
  });
  expect(res.status).toBe(202);
  let job: { status: string; usage?: { actions?: StoredAction[] } } | undefined;
  for (let i = 0; i < 400 && job?.status !== 'done' && job?.status !== 'dead'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    job = ((await (await fetch(`${running!.url}/api/deliveries/act-1`, { headers: adminHeaders })).json()) as { delivery?: typeof job }).delivery;
  }
  expect(job?.status).toBe('done');

  // The model was offered exactly the route's actions, and read each outcome.
  const [ask, followUp] = chat.requests;
  const offered = (ask.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name).sort();
  expect(offered).toEqual(['hookwise__github_add_labels', 'hookwise__github_comment', 'hookwise__message']);
  const results = Object.fromEntries(
    (followUp.body.messages as Array<{ role: string; content: string; tool_call_id?: string }>)
      .filter((m) => m.role === 'tool')
      .map((m) => [m.tool_call_id, m.content]),
  );
  expect(results.c_ok).toContain('done');
  expect(results.c_no).toContain('refused: label(s) not allowed on this route: wontfix; allowed: bug, needs-triage');
  expect(results.c_msg).toContain('done');
  expect(results.c_com).toContain('issuecomment-42');

  // GitHub got exactly the documented requests, with the gateway's token; the refused label never left.
  const calls = github.requests.map((r) => ({ method: r.method, path: r.path, json: r.json, auth: r.headers.authorization, accept: r.headers.accept }));
  expect(calls).toEqual([
    { method: 'POST', path: '/repos/octo/app/issues/7/labels', json: { labels: ['bug'] }, auth: `Bearer ${GH_TOKEN}`, accept: 'application/vnd.github+json' },
    {
      method: 'POST',
      path: '/repos/octo/app/issues/7/comments',
      json: { body: 'Thanks, triaged as a bug.' },
      auth: `Bearer ${GH_TOKEN}`,
      accept: 'application/vnd.github+json',
    },
    {
      method: 'POST',
      path: '/repos/octo/app/issues/7/comments',
      json: { body: 'Thanks, triaged as a bug.' },
      auth: `Bearer ${GH_TOKEN}`,
      accept: 'application/vnd.github+json',
    },
  ]);
  expect(running!.logText()).toContain('on-call: issue 7 looks like a crash');
  expect(running!.fullLogText()).not.toContain(GH_TOKEN);

  // Recorded on the job with their outcomes.
  expect(job?.usage?.actions?.map(({ index, action, status, attempts }) => ({ index, action, status, attempts }))).toEqual([
    { index: 0, action: 'github.add_labels', status: 'done', attempts: 1 },
    { index: 1, action: 'github.add_labels', status: 'refused', attempts: 0 },
    { index: 2, action: 'message', status: 'done', attempts: 1 },
    { index: 3, action: 'github.comment', status: 'done', attempts: 2 },
  ]);

  // deliveries show (through the running gateway's admin API) lists them.
  const shown = await promisify(execFile)(process.execPath, [join(REPO, 'packages/cli/bin/run.js'), 'deliveries', 'show', 'act-1', '--config-dir', dir], {
    env: { ...process.env, HOOKWISE_URL: running!.url },
  }).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: `${err.stdout ?? ''}${err.stderr ?? ''}` }));
  expect(shown.stdout).toMatch(/actions:\s*\n\s*#0 github\.add_labels: done/);
  expect(shown.stdout).toMatch(/#1 github\.add_labels: refused \(label\(s\) not allowed/);
  expect(shown.stdout).toMatch(/#3 github\.comment: done after 2 attempts/);
});
