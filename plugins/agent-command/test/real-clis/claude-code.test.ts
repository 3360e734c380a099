// The claude preset driving the real Claude Code (the pinned version .ci/run installs) through a real gateway and
// its bubblewrap sandbox, against a stand-in speaking the Anthropic Messages API's streaming format, behind the
// gateway's model proxy (the CLI holds only the proxy's URL and a per-run token).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realCli } from './agent-clis';
import { ANTHROPIC_KEY, CLAUDE_OFFLINE, gatewayRun, githubConversation, type GatewayRun } from './gateway-run';
import { anthropicStandIn, type ModelStandIn } from './model-stand-ins';

jest.setTimeout(90_000);

let model: ModelStandIn;
let run: GatewayRun;
let data: string;

beforeAll(() => {
  realCli('claude'); // fails every test here, with the install command, when it does not run
});

beforeEach(async () => {
  model = await anthropicStandIn();
  data = mkdtempSync(join(tmpdir(), 'hw-real-cli-data-'));
  run = await gatewayRun(model, data);
});

afterEach(async () => {
  await run.close();
  await model.close();
  rmSync(data, { recursive: true, force: true });
});

const agent = { preset: 'claude', env: CLAUDE_OFFLINE };
const issue = { repository: { full_name: 'octo/widgets' }, issue: { number: 7, title: 'It breaks' } };

describe('claude preset with the real Claude Code', () => {
  it('delivers the answer the model streamed, with its usage, from inside the sandbox', async () => {
    model.script({ text: 'The widget breaks on empty input.' });
    await run.start(agent, { prompt: 'Triage issue #{issue.number}: {issue.title}' });
    const job = await run.post(issue, 'claude-answer-1');
    expect(job.status).toBe('done');
    expect(job.answer).toBe('The widget breaks on empty input.');
    expect(job.usage).toMatchObject({ outputTokens: 7, sandbox: { sandboxed: true, mode: 'required' } });
    // Through the gateway's model proxy (the sandbox lets the CLI reach nothing else of ours): the stand-in got the
    // gateway's key, the proxy counted the call.
    expect(model.headers[0]['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(job.usage?.modelCalls).toBe(1);
    expect(JSON.stringify(model.requests[0].messages)).toContain('Triage issue #7: It breaks');
    expect(run.logs()).toMatch(/route 'ci': agent program \S+\/claude \(2\.1\.\d+ \(Claude Code\)\)/);
  });

  it("calls the route's action through the gateway's MCP channel (--mcp-config), which the gateway carries out", async () => {
    model.script({ tool: 'github_add_labels', input: { labels: ['bug'] } }, { text: 'Labelled it as a bug.' });
    await run.start(agent, { actions: { 'github.add_labels': { allow: ['bug'] } } });
    const job = await run.post(issue, 'claude-action-1');
    expect(job.status).toBe('done');
    expect(job.answer).toBe('Labelled it as a bug.');
    const labelled = run.github.requests.find((r) => r.path === '/repos/octo/widgets/issues/7/labels');
    expect(labelled?.json).toEqual({ labels: ['bug'] });
    // The tool's result went back to the model.
    expect(JSON.stringify(model.requests[1].messages)).toContain('tool_result');
  });

  // A 403 (Claude Code retries a 401 for about a minute on its own before it gives up); the model proxy answers a
  // refused gateway key with a 403 of its own.
  it('an authentication error result is not retried, and the dead letter says what to fix', async () => {
    model.script({ status: 403, error: 'invalid x-api-key' });
    await run.start(agent);
    const job = await run.post(issue, 'claude-auth-1');
    expect(job.status).toBe('dead');
    expect(job.attempts).toBe(1);
    const message = job.errors.map((e) => e.message).join('\n');
    // The stand-in refused the gateway's key; the model proxy tells the CLI so in its own words (never the provider's).
    expect(message).toMatch(
      /Claude Code: the model API refused the credentials \(HTTP 403\): .*the model provider refused the gateway's credentials \(403\); the gateway's operator must check ANTHROPIC_API_KEY/,
    );
    expect(message).toContain('ANTHROPIC_API_KEY');
    expect(message).not.toMatch(/says: success/);
  });

  it("runs in the route's private home: the operator's ~/.claude is neither read nor changed", async () => {
    // The operator's own Claude Code home, with a canary and settings that would change the run if read.
    mkdirSync(join(run.home, '.claude'), { recursive: true });
    writeFileSync(join(run.home, '.claude', 'canary.txt'), 'operator-canary-5521');
    const settings = JSON.stringify({ env: { HOOKWISE_CANARY_SETTING: 'read-the-operator-settings' }, model: 'operator-model' });
    writeFileSync(join(run.home, '.claude', 'settings.json'), settings);
    writeFileSync(join(run.home, '.claude.json'), '{"operator":true}');
    const before = readdirSync(join(run.home, '.claude')).sort();
    const cwd = mkdtempSync(join(tmpdir(), 'hw-real-cli-checkout-'));
    try {
      // The agent tries to read the canary; its tool result shows what it got.
      model.script({ tool: 'Read', input: { file_path: join(run.home, '.claude', 'canary.txt') } }, { text: 'first answer' });
      await run.start({ ...agent, cwd, args: ['--allowedTools', 'Read'] });
      const first = await run.post(issue, 'claude-home-1');
      expect(first.status).toBe('done');
      const seen = JSON.stringify(model.requests.slice(0, 2));
      expect(seen).not.toContain('operator-canary-5521');
      expect(seen).not.toContain('operator-model');
      expect(readFileSync(join(run.home, '.claude', 'settings.json'), 'utf8')).toBe(settings);
      expect(readdirSync(join(run.home, '.claude')).sort()).toEqual(before);
      expect(readFileSync(join(run.home, '.claude.json'), 'utf8')).toBe('{"operator":true}');
      // The session went to the route's own home under the data dir.
      const own = join(data, 'agent-homes', 'ci', 'claude');
      expect(existsSync(join(own, '.claude', 'projects'))).toBe(true);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  // Claude Code finds its sessions by directory: it resumes only with a fixed agent.cwd.
  it("resumes the session on a reply (--resume in the route's private home): the model sees the first turn as the session's history", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'hw-real-cli-checkout-'));
    try {
      const conversation = githubConversation(run.dir);
      model.script({ text: 'First answer: the README change looks fine.' }, { text: 'Second answer: yes, merge it.' });
      await run.start({ ...agent, cwd }, conversation.route, {}, conversation.platforms);
      const opened = conversation.opened();
      const first = await run.post(opened.body, 'claude-resume-1', { headers: opened.headers, job: opened.headers['x-github-delivery'] });
      expect(first.status).toBe('done');
      expect(first.answer).toBe('First answer: the README change looks fine.');
      const reply = conversation.reply('Can I merge it?');
      const second = await run.post(reply.body, 'claude-resume-2', { headers: reply.headers, job: `ci:${reply.headers['x-github-delivery']}` });
      expect(second.status).toBe('done');
      expect(second.answer).toBe('Second answer: yes, merge it.');
      expect(conversation.comments().map((c) => c.body)).toEqual(['First answer: the README change looks fine.', 'Second answer: yes, merge it.']);
      // The second call carries the session's own history: the first prompt, the first answer as the assistant's
      // turn, then the reply alone (not the gateway's rendered history in one message).
      const messages = model.requests[1].messages as Array<{ role: string; content: unknown }>;
      const said = (m: { content: unknown }) => JSON.stringify(m.content);
      expect(messages.length).toBeGreaterThanOrEqual(3);
      expect(said(messages[0])).toContain('Review PR #2');
      expect(messages.some((m) => m.role === 'assistant' && said(m).includes('First answer: the README change looks fine.'))).toBe(true);
      const last = said(messages[messages.length - 1]);
      expect(last).toContain('Can I merge it?');
      expect(last).not.toContain('Review PR #2');
      expect(run.logs()).not.toContain('could not resume');
      // Both turns through the model proxy, with the gateway's key.
      expect(model.headers.map((h) => h['x-api-key'])).toEqual([ANTHROPIC_KEY, ANTHROPIC_KEY]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
