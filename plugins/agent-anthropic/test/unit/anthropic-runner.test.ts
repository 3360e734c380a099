// The anthropic runner against a local server speaking the Messages API wire format. Response bodies are the
// examples of Anthropic's documentation (Messages API reference, tool use, prompt caching, errors), adapted
// only where they name a tool this runner has; every request the runner sent is asserted.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createLogger, PluginRegistry, Redactor } from '@hookwise/gateway';
import { UNTRUSTED_INPUT_NOTE } from '@hookwise/agent-kit';
import { type AgentTask, type PluginContext } from '@hookwise/core';
import plugin, { createAnthropicRunner, type AnthropicRunnerOptions } from '@hookwise/plugin-agent-anthropic';
import { apiError, message, startMessagesServer, type MessagesServer } from '../messages-server';

const API_KEY = 'sk-ant-api03-test-0123456789abcdef';
// The reference MCP filesystem server from npm, started with this node over stdio.
const FILESYSTEM_SERVER = join(require.resolve('@modelcontextprotocol/server-filesystem/package.json'), '..', 'dist', 'index.js');
const task: AgentTask = { prompt: 'Review pull request #42: "Add retries"', skills: [], route: 'pr-review', event: 'pull_request', deliveryId: 'd-42' };
// The user message: the prompt between the run's own delimiter lines (agent-kit's fenceUntrusted).
const fencedPrompt = expect.stringMatching(
  new RegExp(`\\n<<<hookwise-payload-[0-9a-f]{24}>>>\\n${task.prompt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n<<<end-hookwise-payload-[0-9a-f]{24}>>>$`),
);

let server: MessagesServer | undefined;
let dir: string;
let logText: () => string;

function context(env: NodeJS.ProcessEnv = { ANTHROPIC_API_KEY: API_KEY, PATH: process.env.PATH }): PluginContext {
  const out: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (c: Buffer) => out.push(c.toString('utf8')));
  logText = () => out.join('');
  const redactor = new Redactor();
  return {
    logger: createLogger({ stream, redactor, level: 'debug' }),
    // The terminal's cwd (dir) lies outside the config dir, as it must (issue 29).
    configDir: join(dir, 'config'),
    env,
    signal: new AbortController().signal,
    redact: (s) => redactor.add(s),
  };
}

/** The schema's defaults, as the gateway applies them, plus what a test sets. */
function options(extra: Record<string, unknown> = {}): AnthropicRunnerOptions {
  const registry = new PluginRegistry([{ plugin, source: 'test', options: {} }]);
  const { options: validated, problems } = registry.validateOptions(
    'agent',
    'anthropic',
    { model: 'claude-sonnet-4-5', base_url: server!.baseUrl, ...extra },
    'agent',
  );
  expect(problems).toEqual([]);
  return validated as unknown as AnthropicRunnerOptions;
}

const delays: number[] = [];
const sleep = async (ms: number) => {
  delays.push(ms);
};
const run = (opts: AnthropicRunnerOptions, ctx = context(), t = task) =>
  createAnthropicRunner(opts, ctx, { sleep }).run(t, { signal: new AbortController().signal });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-agent-anthropic-'));
  delays.length = 0;
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('anthropic agent runner', () => {
  it('posts /v1/messages with x-api-key and anthropic-version 2023-06-01, the skills in system, and answers with the text and the usage', async () => {
    // The example response of the Messages API reference.
    server = await startMessagesServer([
      {
        body: {
          content: [{ text: 'Hi! My name is Claude.', type: 'text' }],
          id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
          model: 'claude-sonnet-4-5-20250929',
          role: 'assistant',
          stop_reason: 'end_turn',
          stop_sequence: null,
          type: 'message',
          usage: { input_tokens: 2095, output_tokens: 503 },
        },
      },
    ]);
    const skills = [{ name: 'code-review', description: 'Review a pull request', body: 'Point out bugs first.' }];
    const result = await run(options({ temperature: 0.2, max_tokens: 1024 }), context(), { ...task, skills });
    expect(result).toEqual({ text: 'Hi! My name is Claude.', usage: { inputTokens: 2095, outputTokens: 503 } });
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/messages');
    expect(req.headers['x-api-key']).toBe(API_KEY);
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.authorization).toBeUndefined();
    expect(Object.keys(req.body).sort()).toEqual(['max_tokens', 'messages', 'model', 'system', 'temperature']);
    expect(req.body).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 1024, temperature: 0.2 });
    expect(req.body.messages).toEqual([{ role: 'user', content: fencedPrompt }]);
    // One block, the prompt cache's breakpoint: the skills have no directory of the run to add after it.
    expect(req.body.system).toEqual([{ type: 'text', text: expect.any(String), cache_control: { type: 'ephemeral' } }]);
    const [system] = req.body.system as Array<{ text: string }>;
    expect(system.text).toContain(UNTRUSTED_INPUT_NOTE);
    expect(system.text).toContain('<skill name="code-review">\ndescription: Review a pull request\n\nPoint out bugs first.\n</skill>');
    expect(system.text).not.toContain('terminal');
  });

  it("ends the system prompt's shared part with a cache_control breakpoint and puts the run's skill directories after it", async () => {
    const answer = () => message([{ type: 'text', text: 'ok' }], 'end_turn', { input_tokens: 10, output_tokens: 1 });
    server = await startMessagesServer([answer(), answer()]);
    const skill = (dir: string) => [{ name: 'code-review', description: 'Review a pull request', body: 'Point out bugs first.', dir }];
    await run(options(), context(), { ...task, skills: skill('/tmp/hookwise-job-a/.hookwise-skills-1/code-review') });
    await run(options(), context(), { ...task, skills: skill('/tmp/hookwise-job-b/.hookwise-skills-2/code-review') });
    const [first, second] = server.requests.map((r) => r.body.system as Array<{ text: string; cache_control?: unknown }>);
    expect(first[0]).toEqual(second[0]);
    expect(first[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(first[0].text).toContain('Point out bugs first.');
    expect(first[1]).toEqual({ type: 'text', text: expect.stringContaining('- code-review: /tmp/hookwise-job-a/.hookwise-skills-1/code-review') });
    expect(second[1].text).toContain('/tmp/hookwise-job-b/');
  });

  it('runs the tool_use loop with the terminal: the assistant turn goes back as it came, then a tool_result per call; usage summed, cache tokens included', async () => {
    writeFileSync(join(dir, 'CHANGELOG.md'), '## 1.2.0\n- retries\n');
    // The tool use documentation's response (text, then a tool_use block), its tool named as this runner's.
    const toolTurn = {
      body: {
        id: 'msg_01Aq9w938a90dw8q',
        model: 'claude-sonnet-4-5',
        stop_reason: 'tool_use',
        role: 'assistant',
        type: 'message',
        content: [
          { type: 'text', text: '<thinking>I need to read the changelog to review the pull request.</thinking>' },
          { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'terminal', input: { command: 'cat CHANGELOG.md; echo "key=[$ANTHROPIC_API_KEY]"' } },
        ],
        // The prompt caching documentation's usage: input_tokens leaves the cache out.
        usage: { cache_creation_input_tokens: 188086, cache_read_input_tokens: 0, input_tokens: 21, output_tokens: 393 },
      },
    };
    server = await startMessagesServer([
      toolTurn,
      message([{ type: 'text', text: 'The changelog lists retries; looks good.' }], 'end_turn', {
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 188086,
        input_tokens: 450,
        output_tokens: 40,
      }),
    ]);
    const result = await run(options({ tools: ['terminal'], terminal: { cwd: dir } }));
    expect(result).toEqual({
      text: 'The changelog lists retries; looks good.',
      usage: { inputTokens: 21 + 188086 + 450 + 188086, outputTokens: 433, cachedInputTokens: 188086, cacheWriteTokens: 188086 },
    });
    const [first, second] = server.requests;
    expect(first.body.tools).toEqual([
      {
        name: 'terminal',
        description: 'Runs one shell command (/bin/sh -c) on the gateway host and returns its exit code, stdout and stderr.',
        input_schema: {
          type: 'object',
          properties: { command: { type: 'string', description: 'The shell command to run.' } },
          required: ['command'],
          additionalProperties: false,
        },
      },
    ]);
    expect(JSON.stringify(first.body.system)).toContain('`terminal` tool');
    expect(second.body.messages).toEqual([
      { role: 'user', content: fencedPrompt },
      { role: 'assistant', content: toolTurn.body.content },
      // The API key is kept out of the terminal's environment.
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: 'exit code: 0\nstdout:\n## 1.2.0\n- retries\nkey=[]' }],
      },
    ]);
    expect(second.body.tools).toEqual(first.body.tools);
  });

  it('answers every tool_use of a turn in order, marking refused commands with is_error', async () => {
    server = await startMessagesServer([
      message(
        [
          { type: 'tool_use', id: 'toolu_1', name: 'terminal', input: { command: 'touch evil.txt' } },
          { type: 'tool_use', id: 'toolu_2', name: 'terminal', input: { command: 'echo allowed' } },
          { type: 'tool_use', id: 'toolu_3', name: 'weather', input: {} },
        ],
        'tool_use',
      ),
      message([{ type: 'text', text: 'done' }], 'end_turn'),
    ]);
    await run(options({ tools: ['terminal'], terminal: { cwd: dir, allow: ['echo *'] } }));
    const results = (server.requests[1].body.messages as Array<{ content: unknown }>)[2].content as Array<Record<string, unknown>>;
    expect(results.map((r) => r.tool_use_id)).toEqual(['toolu_1', 'toolu_2', 'toolu_3']);
    expect(results[0]).toMatchObject({ type: 'tool_result', is_error: true });
    expect(results[0].content).toMatch(/^refused: the command matches none of terminal.allow \("echo \*"\)/);
    expect(results[1]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_2', content: 'exit code: 0\nstdout:\nallowed' });
    expect(results[2]).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_3',
      content: 'error: there is no tool named "weather"; the tools are: terminal',
      is_error: true,
    });
    expect(existsSync(join(dir, 'evil.txt'))).toBe(false);
  });

  it('retries 429 rate_limit_error and 529 overloaded_error after the retry-after the API asked for', async () => {
    server = await startMessagesServer([
      apiError(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit', { 'retry-after': '2' }),
      apiError(529, 'overloaded_error', 'Overloaded'),
      apiError(500, 'api_error', 'Internal server error', { 'retry-after': '1' }),
      message([{ type: 'text', text: 'third time lucky' }], 'end_turn'),
    ]);
    const result = await run(options());
    expect(result.text).toBe('third time lucky');
    // 2 s and 1 s as asked; the 529 without a hint waits the backoff of the second attempt.
    expect(delays).toEqual([2000, 1000, 1000]);
    expect(server.requests).toHaveLength(4);
    expect(server.requests[3].body).toEqual(server.requests[0].body);
    expect(logText()).toContain(
      'Anthropic API answered 429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit (request req_011CSHoEeqs5C35K2UUqR7Fy)',
    );
    expect(logText()).toContain('Anthropic API answered 529 overloaded_error: Overloaded');
  });

  it('gives up after max_retries with a retryable error carrying the retry-after hint', async () => {
    const overloaded = apiError(529, 'overloaded_error', 'Overloaded', { 'retry-after': '7' });
    server = await startMessagesServer([overloaded, overloaded]);
    const error = await run(options({ max_retries: 1 })).catch((e) => e);
    expect(error.code).toBe('HW_E_AGENT');
    expect(error.retryable).toBe(true);
    expect(error.retryAfterSeconds).toBe(7);
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    [401, 'authentication_error', 'invalid x-api-key', 'check the API key in the environment variable ANTHROPIC_API_KEY'],
    [403, 'permission_error', 'Your API key does not have permission to use the specified resource.', 'may not use this model'],
    [400, 'invalid_request_error', 'max_tokens: Field required', 'check agent.model, agent.max_tokens'],
    [404, 'not_found_error', 'The requested resource could not be found.', 'check agent.model and agent.base_url'],
  ])('does not retry %i %s and says what to check', async (status, type, text, hint) => {
    server = await startMessagesServer([apiError(status, type, text)]);
    const error = await run(options()).catch((e) => e);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(`Anthropic API answered ${status} ${type}: ${text}`);
    expect(error.message).toContain(hint);
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('never logs or reports the API key, even when an error echoes it', async () => {
    server = await startMessagesServer([apiError(401, 'authentication_error', `invalid x-api-key: ${API_KEY}`)]);
    const ctx = context();
    const error = await run(options(), ctx).catch((e) => e);
    ctx.logger.error(`agent failed: ${error.message}`, { error });
    expect(error.message).toContain('invalid x-api-key: [REDACTED]');
    expect(error.message).not.toContain(API_KEY);
    expect(logText()).toContain('agent failed');
    expect(logText()).not.toContain(API_KEY);
  });

  it('returns the text cut by max_tokens with a warning, but fails when the cut falls inside a tool call', async () => {
    server = await startMessagesServer([message([{ type: 'text', text: 'The first half of a long rev' }], 'max_tokens')]);
    expect((await run(options({ max_tokens: 16 }))).text).toBe('The first half of a long rev');
    expect(logText()).toContain("the model's answer was cut by agent.max_tokens (16)");
    await server.close();

    server = await startMessagesServer([message([{ type: 'tool_use', id: 'toolu_cut', name: 'terminal', input: {} }], 'max_tokens')]);
    const error = await run(options({ max_tokens: 16, tools: ['terminal'], terminal: { cwd: dir } })).catch((e) => e);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('cut by agent.max_tokens (16) in the middle of a tool call; raise agent.max_tokens');
  });

  it('fails without retry when the model refuses, and retries an empty end_turn', async () => {
    server = await startMessagesServer([message([], 'refusal')]);
    const refused = await run(options()).catch((e) => e);
    expect(refused.retryable).toBe(false);
    expect(refused.message).toContain('declined to answer (stop_reason refusal)');
    await server.close();

    server = await startMessagesServer([message([], 'end_turn')]);
    const empty = await run(options()).catch((e) => e);
    expect(empty.retryable).toBe(true);
    expect(empty.message).toContain('no answer text (stop_reason end_turn)');
  });

  it('sends a pause_turn back as it is so the model goes on', async () => {
    const paused = message([{ type: 'text', text: 'Working on it' }], 'pause_turn');
    server = await startMessagesServer([paused, message([{ type: 'text', text: 'Finished.' }], 'end_turn')]);
    expect((await run(options())).text).toBe('Finished.');
    expect(server.requests[1].body.messages).toEqual([
      { role: 'user', content: fencedPrompt },
      { role: 'assistant', content: (paused.body as { content: unknown }).content },
    ]);
  });

  it('stops with a non-retryable error when max_steps is reached without a final answer', async () => {
    const again = message([{ type: 'tool_use', id: 'toolu_x', name: 'terminal', input: { command: 'true' } }], 'tool_use');
    server = await startMessagesServer([again, again, again]);
    const error = await run(options({ tools: ['terminal'], max_steps: 2, terminal: { cwd: dir } })).catch((e) => e);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('did not give a final answer within agent.max_steps (2)');
    expect(server.requests).toHaveLength(2);
  });

  it('offers the tools of an MCP server (the real filesystem server over stdio), calls the one the model asks for and sends its result back', async () => {
    writeFileSync(join(dir, 'notes.txt'), 'release 1.2 is on Friday\n');
    server = await startMessagesServer([
      message([{ type: 'tool_use', id: 'toolu_fs', name: 'fs__read_text_file', input: { path: join(dir, 'notes.txt') } }], 'tool_use'),
      message([{ type: 'text', text: 'The release is on Friday.' }], 'end_turn'),
    ]);
    const runner = createAnthropicRunner(options({ mcp_servers: [{ name: 'fs', command: process.execPath, args: [FILESYSTEM_SERVER, dir] }] }), context(), {
      sleep,
    });
    try {
      expect((await runner.run(task, { signal: new AbortController().signal })).text).toBe('The release is on Friday.');
    } finally {
      await runner.stop?.();
    }
    const [first, second] = server.requests;
    const offered = first.body.tools as Array<{ name: string; description: string; input_schema: { properties: Record<string, unknown> } }>;
    expect(offered.map((t) => t.name)).toEqual(expect.arrayContaining(['fs__read_text_file', 'fs__list_directory', 'fs__write_file']));
    const read = offered.find((t) => t.name === 'fs__read_text_file')!;
    expect(read.description).toContain('(tool "read_text_file" of the MCP server "fs")');
    expect(read.input_schema.properties).toHaveProperty('path');
    expect((second.body.messages as Array<{ content: unknown }>)[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_fs', content: 'release 1.2 is on Friday\n' }],
    });
  });

  it("gives the model the MCP server's error as an is_error result (a path outside the allowed directory)", async () => {
    server = await startMessagesServer([
      message([{ type: 'tool_use', id: 'toolu_out', name: 'fs__read_text_file', input: { path: '/etc/hostname' } }], 'tool_use'),
      message([{ type: 'text', text: 'I cannot read that.' }], 'end_turn'),
    ]);
    const runner = createAnthropicRunner(
      options({ mcp_servers: [{ name: 'fs', command: process.execPath, args: [FILESYSTEM_SERVER, dir], tools: ['read_text_file'] }] }),
      context(),
      { sleep },
    );
    try {
      await runner.run(task, { signal: new AbortController().signal });
    } finally {
      await runner.stop?.();
    }
    const result = ((server.requests[1].body.messages as Array<{ content: unknown }>)[2].content as Array<Record<string, unknown>>)[0];
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_out', is_error: true });
    expect(String(result.content)).toMatch(/^error: .*(denied|outside allowed directories)/i);
    expect((server.requests[0].body.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(['fs__read_text_file']);
  });

  it('fails the run with a non-retryable error naming the server when an MCP command does not exist', async () => {
    server = await startMessagesServer([]);
    const runner = createAnthropicRunner(options({ mcp_servers: [{ name: 'ghost', command: join(dir, 'no-such-mcp-server') }] }), context(), { sleep });
    const error = await runner.run(task, { signal: new AbortController().signal }).catch((e) => e);
    await runner.stop?.();
    expect(error.message).toContain("MCP server 'ghost'");
    expect(error.message).toContain('could not be started');
    expect(error.message).toContain('check that the command is installed');
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(0);
  });
});
