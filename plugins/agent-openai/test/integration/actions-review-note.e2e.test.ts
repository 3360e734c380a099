// github.review with line comments and gitlab.note end to end (issue 30): a real gateway runs the openai runner
// against a Chat Completions stand-in whose model calls the route's actions. The review goes to a GitHub stand-in
// as the App configured for github_comment (installation token minted with the app JWT, then
// POST /repos/{owner}/{repo}/pulls/{number}/reviews with commit_id, event, body and comments[{path, line, side,
// body}], as GitHub documents it); the note goes to a GitLab stand-in with platforms.gitlab_comment's token
// (POST /api/v4/projects/:id/merge_requests/:iid/notes). Each stand-in answers the first call 502 (retried), and
// each route refuses one call (a verdict it does not allow, a note past its max). The stand-ins record the exact
// requests; the jobs record every call with its outcome.
import { createHmac, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRecordingServer, startTestGateway, type RecordingServer, type TestGateway } from '@hookwise/testing';
import { final, startChatServer, toolCalls, type ChatServer, scriptedAgentLines, adminHeaders } from '../chat-server';

jest.setTimeout(60_000);

const SECRET = 'review-note-secret-0123456789';
const GL_TOKEN = 'glpat-actions-test-0123456789';
const APP_ID = '4711';
const INSTALLATION = 99;
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

let dir: string;
let chat: ChatServer;
let github: RecordingServer;
let gitlab: RecordingServer;
let running: TestGateway | undefined;

const LINE_COMMENTS = [
  { path: 'src/app.ts', line: 14, side: 'RIGHT', body: 'This can throw on an empty list.' },
  { path: 'src/old.ts', line: 3, side: 'LEFT', body: 'Why was this check removed?' },
];

/** The claims of a JWT whose RS256 signature the App's public key verifies (else undefined). */
function appJwtClaims(authorization: string | undefined): Record<string, unknown> | undefined {
  const jwt = /^bearer (.+)$/i.exec(authorization ?? '')?.[1];
  if (!jwt) return undefined;
  const [header, claims, signature] = jwt.split('.');
  const ok = verify('sha256', Buffer.from(`${header}.${claims}`), createPublicKey(privateKey), Buffer.from(signature, 'base64url'));
  return ok ? (JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Record<string, unknown>) : undefined;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-review-note-'));
  let reviews = 0;
  github = await startRecordingServer((req) => {
    if (req.method === 'POST' && req.path === `/app/installations/${INSTALLATION}/access_tokens`) {
      if (!appJwtClaims(req.headers.authorization)) return { status: 401, json: { message: 'A JSON web token could not be decoded' } };
      return { status: 201, json: { token: 'ghs_installation_token_1', expires_at: new Date(Date.now() + 3600_000).toISOString() } };
    }
    if (req.headers.authorization !== 'token ghs_installation_token_1') return { status: 401, json: { message: 'Bad credentials' } };
    if (req.method === 'POST' && req.path === '/repos/octo/app/pulls/12/reviews') {
      reviews += 1;
      if (reviews === 1) return { status: 502, json: { message: 'Server Error' } };
      return { status: 200, json: { id: 80, state: 'COMMENTED', html_url: 'https://github.example/octo/app/pull/12#pullrequestreview-80' } };
    }
    return { status: 404, json: { message: 'Not Found' } };
  });
  let notes = 0;
  gitlab = await startRecordingServer((req) => {
    if (req.headers['private-token'] !== GL_TOKEN) return { status: 401, json: { message: '401 Unauthorized' } };
    if (req.method === 'GET' && req.path === '/api/v4/user') return { status: 200, json: { id: 5, username: 'hookwise-bot' } };
    if (req.method === 'POST' && req.path === '/api/v4/projects/42/merge_requests/7/notes') {
      notes += 1;
      if (notes === 1) return { status: 502, json: { message: '502 Bad Gateway' } };
      return { status: 201, json: { id: 3001, body: (req.json as { body: string }).body, noteable_type: 'MergeRequest', noteable_iid: 7 } };
    }
    return { status: 404, json: { message: '404 Not Found' } };
  });
  chat = await startChatServer([
    toolCalls([
      { id: 'r_no', name: 'hookwise__github_review', args: { body: 'Ship it', event: 'APPROVE' } },
      { id: 'r_ok', name: 'hookwise__github_review', args: { body: 'Two things to look at.', event: 'COMMENT', comments: LINE_COMMENTS } },
    ]),
    final('Reviewed.'),
    toolCalls([
      { id: 'n_ok', name: 'hookwise__gitlab_note', args: { body: 'Pipeline fixed by !7, thanks.' } },
      { id: 'n_no', name: 'hookwise__gitlab_note', args: { body: 'And one more thing' } },
    ]),
    final('Noted.'),
  ]);
  writeFileSync(join(dir, 'app.pem'), PEM);
  const route = (name: string, prompt: string, actions: string[]) => [
    `        ${name}:`,
    `          secret: ${SECRET}`,
    `          prompt: "${prompt}"`,
    '          deliver: none',
    '          actions:',
    ...actions.map((a) => `            ${a}`),
  ];
  running = await startTestGateway({
    configDir: dir,
    config: [
      'platforms:',
      '  github_comment:',
      `    app_id: ${APP_ID}`,
      '    private_key_file: app.pem',
      `    api_base: ${github.url}`,
      '  gitlab_comment:',
      '    enabled: true',
      '    token: ${GL_TOKEN}',
      `    api_base: ${gitlab.url}`,
      '  webhook:',
      '    enabled: true',
      '    extra:',
      '      host: 127.0.0.1',
      '      routes:',
      ...route('review', 'Review pull request {pull_request.number}', ['github.review: { events: [COMMENT], max: 2 }']),
      ...route('mr-notes', 'Answer on merge request {object_attributes.iid}', ['gitlab.note: { max: 1 }']),
      ...scriptedAgentLines(chat, 'ACTIONS_KEY'),
      '',
    ].join('\n'),
    // No GH_TOKEN: the review can only go as the App.
    env: { PATH: process.env.PATH, ACTIONS_KEY: 'sk-actions-key', GL_TOKEN },
    pollMs: 50,
  });
});

afterAll(async () => {
  await running?.stop();
  await chat?.close();
  await github?.close();
  await gitlab?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface StoredAction {
  index: number;
  action: string;
  status: string;
  attempts: number;
  receipt?: unknown;
  reason?: string;
}

/** Posts the event to the route and waits for its job to end; the job as the admin API shows it. */
async function run(route: string, id: string, payload: unknown): Promise<{ status: string; usage?: { actions?: StoredAction[] } } | undefined> {
  const body = JSON.stringify(payload);
  const res = await fetch(`${running!.url}/webhooks/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': createHmac('sha256', SECRET).update(body).digest('hex'), 'x-request-id': id },
    body,
  });
  expect(res.status).toBe(202);
  let job: { status: string; usage?: { actions?: StoredAction[] } } | undefined;
  for (let i = 0; i < 400 && job?.status !== 'done' && job?.status !== 'dead'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    job = ((await (await fetch(`${running!.url}/api/deliveries/${id}`, { headers: adminHeaders })).json()) as { delivery?: typeof job }).delivery;
  }
  return job;
}

const toolResults = (i: number): Record<string, string> =>
  Object.fromEntries(
    (chat.requests[i].body.messages as Array<{ role: string; content: string; tool_call_id?: string }>)
      .filter((m) => m.role === 'tool')
      .map((m) => [m.tool_call_id, m.content]),
  );

it('github.review: line comments posted as the App, pinned to the head commit, a verdict refused, a 502 retried', async () => {
  const job = await run('review', 'review-1', {
    action: 'synchronize',
    number: 12,
    pull_request: { number: 12, head: { sha: 'abc123def456' } },
    repository: { full_name: 'octo/app' },
    installation: { id: INSTALLATION },
  });
  expect(job?.status).toBe('done');
  expect((chat.requests[0].body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(['hookwise__github_review']);
  const results = toolResults(1);
  expect(results.r_no).toContain("refused: review verdict 'APPROVE' is not allowed on this route; allowed: COMMENT");
  expect(results.r_ok).toContain('pullrequestreview-80');

  // One installation token, minted with the App's JWT (iss = the app id), then the documented review request twice.
  const [mint, ...calls] = github.requests;
  expect(mint.method).toBe('POST');
  expect(mint.path).toBe(`/app/installations/${INSTALLATION}/access_tokens`);
  expect(appJwtClaims(mint.headers.authorization)).toMatchObject({ iss: Number(APP_ID) });
  const review = {
    method: 'POST',
    path: '/repos/octo/app/pulls/12/reviews',
    json: { commit_id: 'abc123def456', body: 'Two things to look at.', event: 'COMMENT', comments: LINE_COMMENTS },
    auth: 'token ghs_installation_token_1',
    accept: 'application/vnd.github+json',
    version: '2022-11-28',
  };
  expect(
    calls.map((r) => ({
      method: r.method,
      path: r.path,
      json: r.json,
      auth: r.headers.authorization,
      accept: r.headers.accept,
      version: r.headers['x-github-api-version'],
    })),
  ).toEqual([review, review]);

  expect(job?.usage?.actions?.map(({ index, action, status, attempts }) => ({ index, action, status, attempts }))).toEqual([
    { index: 0, action: 'github.review', status: 'refused', attempts: 0 },
    { index: 1, action: 'github.review', status: 'done', attempts: 2 },
  ]);
  expect(job?.usage?.actions?.[1].receipt).toEqual({ id: 80, state: 'COMMENTED', url: 'https://github.example/octo/app/pull/12#pullrequestreview-80' });
});

it("gitlab.note: a note on the event's merge request with gitlab_comment's token, a 502 retried, a call past max refused", async () => {
  const job = await run('mr-notes', 'mr-1', {
    object_kind: 'merge_request',
    project: { id: 42, path_with_namespace: 'group/app' },
    object_attributes: { iid: 7, action: 'update' },
  });
  expect(job?.status).toBe('done');
  expect((chat.requests[2].body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(['hookwise__gitlab_note']);
  const results = toolResults(3);
  expect(results.n_ok).toContain('3001');
  expect(results.n_no).toContain("refused: 'gitlab.note' may be called at most 1 time(s) per event");

  const note = {
    method: 'POST',
    path: '/api/v4/projects/42/merge_requests/7/notes',
    json: { body: 'Pipeline fixed by !7, thanks.' },
    token: GL_TOKEN,
    type: 'application/json',
  };
  const posts = gitlab.requests.filter((r) => r.method === 'POST');
  expect(posts.map((r) => ({ method: r.method, path: r.path, json: r.json, token: r.headers['private-token'], type: r.headers['content-type'] }))).toEqual([
    note,
    note,
  ]);
  expect(job?.usage?.actions?.map(({ index, action, status, attempts }) => ({ index, action, status, attempts }))).toEqual([
    { index: 0, action: 'gitlab.note', status: 'done', attempts: 2 },
    { index: 1, action: 'gitlab.note', status: 'refused', attempts: 0 },
  ]);
  expect(running!.fullLogText()).not.toContain(GL_TOKEN);
  expect(running!.fullLogText()).not.toContain('ghs_installation_token_1');
});
