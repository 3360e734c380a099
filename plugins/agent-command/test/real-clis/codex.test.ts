// The codex preset driving the real Codex CLI (the pinned version .ci/run installs, its native binary from npm)
// through a real gateway and its bubblewrap sandbox, against a stand-in speaking the OpenAI Responses API's
// streaming format, behind the gateway's model proxy (the CLI holds only the proxy's URL and a per-run token).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realCli } from './agent-clis';
import { OPENAI_KEY, gatewayRun, githubConversation, type GatewayRun } from './gateway-run';
import { lastCustomToolOutput, responsesStandIn, type ModelStandIn } from './model-stand-ins';

jest.setTimeout(90_000);

let model: ModelStandIn;
let run: GatewayRun;
let data: string;

beforeAll(() => {
  realCli('codex'); // fails every test here, with the install command, when it does not run
});

beforeEach(async () => {
  model = await responsesStandIn();
  data = mkdtempSync(join(tmpdir(), 'hw-real-cli-data-'));
  run = await gatewayRun(model, data);
});

afterEach(async () => {
  await run.close();
  await model.close();
  rmSync(data, { recursive: true, force: true });
});

const agent = { preset: 'codex' };
const issue = { repository: { full_name: 'octo/widgets' }, issue: { number: 7, title: 'It breaks' } };

describe('codex preset with the real Codex CLI', () => {
  it("delivers the answer, reaching the model through the model proxy (a provider entry from OPENAI_BASE_URL) with the proxy's token, the stand-in getting the gateway's key", async () => {
    model.script({ text: 'The widget breaks on empty input.' });
    await run.start(agent, { prompt: 'Triage issue #{issue.number}: {issue.title}' });
    const job = await run.post(issue, 'codex-answer-1');
    expect(job.status).toBe('done');
    expect(job.answer).toBe('The widget breaks on empty input.');
    expect(job.usage).toMatchObject({ inputTokens: 30, cachedInputTokens: 4, outputTokens: 6, sandbox: { sandboxed: true } });
    expect(model.headers[0].authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(job.usage?.modelCalls).toBe(1);
    expect(JSON.stringify(model.requests[0].input)).toContain('Triage issue #7: It breaks');
    expect(run.logs()).toMatch(/route 'ci': agent program \S+\/codex \(codex-cli 0\.\d+\.\d+\)/);
  });

  it('delivers a completed run although an earlier stream broke ("Reconnecting... 1/5" error event)', async () => {
    model.script({ cut: true }, { text: 'Answer after a reconnect.' });
    await run.start(agent);
    const job = await run.post(issue, 'codex-reconnect-1');
    expect(job.status).toBe('done');
    expect(job.answer).toBe('Answer after a reconnect.');
    expect(job.attempts).toBe(1);
    expect(model.requests).toHaveLength(2);
  });

  // Codex 0.171 offers MCP tools only through its freeform `exec` tool (JavaScript it runs itself, each tool a
  // function of the global `tools`); the request names the server's namespace as deferred. A model first looks for
  // them in `ALL_TOOLS`, then calls the one it found: so does this script.
  it("performs the route's action through the gateway's MCP channel (-c mcp_servers.hookwise...): found, called, carried out", async () => {
    model.script(
      { exec: () => "text(JSON.stringify(ALL_TOOLS.filter((t) => t.name.startsWith('mcp__hookwise__')).map((t) => t.name)));" },
      {
        exec: (body) => {
          const names = JSON.parse(lastCustomToolOutput(body).match(/\[.*\]/s)?.[0] ?? '[]') as string[];
          const comment = names.find((n) => n.endsWith('github_comment'));
          return `const r = await tools[${JSON.stringify(comment)}]({ body: 'Reproduced: it breaks on empty input.' }); text(JSON.stringify(r));`;
        },
      },
      { text: 'Commented on the issue.' },
    );
    await run.start(agent, { actions: { 'github.comment': {}, 'github.add_labels': { allow: ['bug'] } } });
    const job = await run.post(issue, 'codex-action-1');
    expect(job.status).toBe('done');
    expect(job.answer).toBe('Commented on the issue.');
    expect(JSON.stringify(model.requests[0])).toContain('Deferred tool namespaces:\\n- mcp__hookwise');
    // What Codex found: exactly the route's actions.
    expect(lastCustomToolOutput(model.requests[1])).toContain('["mcp__hookwise__github_add_labels","mcp__hookwise__github_comment"]');
    // The gateway posted the comment with its own credentials, once.
    const comments = run.github.requests.filter((r) => r.method === 'POST' && r.path === '/repos/octo/widgets/issues/7/comments');
    expect(comments).toHaveLength(1);
    expect(comments[0].json).toEqual({ body: 'Reproduced: it breaks on empty input.' });
    expect(comments[0].headers.authorization).toMatch(/ghp_standin_token_1234567890/);
    // The action's outcome went back to the model, and is recorded with the run.
    expect(lastCustomToolOutput(model.requests[2])).not.toMatch(/isError":true/);
    expect((job.usage as { actions?: unknown[] }).actions).toEqual([expect.objectContaining({ action: 'github.comment', status: 'done' })]);
  });

  it('a refused key fails the run without retry, with what to fix', async () => {
    model.script(...Array.from({ length: 8 }, () => ({ status: 401, error: 'Incorrect API key provided' })));
    await run.start(agent);
    const job = await run.post(issue, 'codex-auth-1');
    expect(job.status).toBe('dead');
    expect(job.attempts).toBe(1);
    expect(job.errors.map((e) => e.message).join('\n')).toMatch(/Codex: the model API refused the credentials: .*401.*CODEX_API_KEY/s);
  });

  it('resumes the thread on a reply (codex exec resume <thread_id>): the model sees the first turn as its history', async () => {
    const conversation = githubConversation(run.dir);
    model.script({ text: 'First answer: the README change looks fine.' }, { text: 'Second answer: yes, merge it.' });
    await run.start(agent, conversation.route, {}, conversation.platforms);
    const opened = conversation.opened();
    const first = await run.post(opened.body, 'codex-resume-1', { headers: opened.headers, job: opened.headers['x-github-delivery'] });
    expect(first.status).toBe('done');
    const reply = conversation.reply('Can I merge it?');
    const second = await run.post(reply.body, 'codex-resume-2', { headers: reply.headers, job: `ci:${reply.headers['x-github-delivery']}` });
    expect(second.status).toBe('done');
    expect(second.answer).toBe('Second answer: yes, merge it.');
    expect(conversation.comments().map((c) => c.body)).toEqual(['First answer: the README change looks fine.', 'Second answer: yes, merge it.']);
    // The resumed thread's items: the first prompt and answer, then the reply alone in the last user item.
    const input = model.requests[1].input as Array<{ role?: string; content?: unknown }>;
    const said = (item: { content?: unknown }) => JSON.stringify(item.content ?? '');
    expect(input.some((item) => item.role === 'user' && said(item).includes('Review PR #2'))).toBe(true);
    expect(input.some((item) => item.role === 'assistant' && said(item).includes('First answer: the README change looks fine.'))).toBe(true);
    const lastUser = [...input].reverse().find((item) => item.role === 'user')!;
    expect(said(lastUser)).toContain('Can I merge it?');
    expect(said(lastUser)).not.toContain('Review PR #2');
    expect(run.logs()).not.toContain('could not resume');
    expect(model.headers.map((h) => h.authorization)).toEqual([`Bearer ${OPENAI_KEY}`, `Bearer ${OPENAI_KEY}`]);
  });
});
