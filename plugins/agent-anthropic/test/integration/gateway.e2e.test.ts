// The anthropic runner in a real gateway: a signed webhook over HTTP runs the route's agent (runner: anthropic,
// loaded as a first-party plugin from its build), which uses the terminal through native tool use against a
// local Messages API stand-in; the answer is delivered and the run's summed usage reaches the worker's
// agent_finished event and the metrics.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '@hookwise/testing';
import { message, startMessagesServer, type MessagesServer } from '../messages-server';

const ROUTE_SECRET = 'review-route-secret-0123456789';
const API_KEY = 'sk-ant-e2e-key-0123456789abcdef';

let dir: string;
// The terminal's cwd: a project dir outside the config dir (the sandbox hides the config dir from the run).
let project: string;
let api: MessagesServer | undefined;
let running: TestGateway | undefined;

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting for ${what}; log so far:\n${running?.logText()}`);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-anthropic-e2e-'));
  project = mkdtempSync(join(tmpdir(), 'hw-anthropic-e2e-project-'));
});

afterEach(async () => {
  await running?.stop();
  running = undefined;
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});

it('a webhook runs the anthropic agent with a terminal tool call; the answer is delivered and the usage reported', async () => {
  writeFileSync(join(project, 'VERSION'), '1.4.2\n');
  api = await startMessagesServer([
    message([{ type: 'tool_use', id: 'toolu_version', name: 'terminal', input: { command: 'cat VERSION' } }], 'tool_use', {
      input_tokens: 400,
      output_tokens: 30,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 0,
    }),
    message([{ type: 'text', text: 'Release 1.4.2 is tagged.' }], 'end_turn', {
      input_tokens: 480,
      output_tokens: 12,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 0,
    }),
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
      '        release:',
      `          secret: ${ROUTE_SECRET}`,
      '          prompt: "A tag was pushed: {ref}. Which version is it?"',
      'agent:',
      '  runner: anthropic',
      `  base_url: ${api.baseUrl}`,
      '  model: claude-sonnet-4-5',
      '  max_tokens: 512',
      '  tools: [terminal]',
      '  terminal:',
      `    cwd: ${project}`,
      '    allow: ["cat VERSION"]',
      'metrics:',
      '  enabled: true',
      'store:',
      '  backend: memory',
      '',
    ].join('\n'),
    env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: API_KEY },
    pollMs: 50,
  });
  const finished: unknown[] = [];
  running.gateway.on('agent_finished', (e) => finished.push(e));

  const body = JSON.stringify({ ref: 'refs/tags/v1.4.2' });
  const res = await fetch(`${running.url}/webhooks/release`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': createHmac('sha256', ROUTE_SECRET).update(body).digest('hex') },
    body,
  });
  expect(res.status).toBe(202);
  await running.waitForLog("response for route 'release'");
  await waitFor(() => finished.length === 1, 'the agent_finished event');

  expect(running!.logText()).toContain('Release 1.4.2 is tagged.');
  expect(api.requests).toHaveLength(2);
  expect(api.requests[0].headers['x-api-key']).toBe(API_KEY);
  // The rendered prompt, fenced between the run's own delimiter lines (agent-kit's fenceUntrusted).
  expect(api.requests[0].body.messages).toEqual([
    {
      role: 'user',
      content: expect.stringMatching(
        /\n<<<hookwise-payload-[0-9a-f]{24}>>>\nA tag was pushed: refs\/tags\/v1\.4\.2\. Which version is it\?\n<<<end-hookwise-payload-[0-9a-f]{24}>>>$/,
      ),
    },
  ]);
  expect((api.requests[1].body.messages as Array<{ content: unknown }>)[2].content).toEqual([
    { type: 'tool_result', tool_use_id: 'toolu_version', content: 'exit code: 0\nstdout:\n1.4.2' },
  ]);
  expect(finished[0]).toMatchObject({
    route: 'release',
    runner: 'anthropic',
    outcome: 'ok',
    usage: { inputTokens: 2880, outputTokens: 42, cachedInputTokens: 2000, cacheWriteTokens: 0 },
  });
  const metrics = await (await fetch(`${running.url}/metrics`)).text();
  expect(metrics).toMatch(/hookwise_agent_tokens_total\{route="release",runner="anthropic",type="input"\} 2880/);
  expect(metrics).toMatch(/hookwise_agent_tokens_total\{route="release",runner="anthropic",type="output"\} 42/);
  expect(running!.fullLogText()).not.toContain(API_KEY);
});
