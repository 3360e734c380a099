// The SPEC's story end to end: a webhook on a route with the webhook-subscriptions skill reaches the openai
// runner; the (scripted) model runs `hookwise webhook subscribe` with its terminal tool; the new subscription
// then accepts a signed request on the running gateway, with no restart. The run is sandboxed (agent.sandbox.mode
// auto), so the CLI goes through the gateway's per-job channel: the gateway generates the route's secret and the
// agent never sees it; the operator reads it outside the run.
import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startTestGateway, type TestGateway } from '@hookwise/testing';
import { completion, startChatServer, type ChatServer } from '../chat-server';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const REPO = resolve(TEST_DIR, '../../..');
// `hookwise` as the agent finds it on PATH: the workspace's link to the built CLI. An absolute script path
// would be an argument outside the work dir, which terminal.allow refuses.
const BIN = join(REPO, 'node_modules/.bin');
const ROUTE_SECRET = 'ops-route-secret-0123456789';

let dir: string;
let chat: ChatServer;
let running: TestGateway | undefined;

function sign(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

async function post(route: string, payload: unknown, secret: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = JSON.stringify(payload);
  const res = await fetch(`${running!.url}/webhooks/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': sign(body, secret) },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(() => {
  if (!existsSync(join(REPO, 'packages/cli/dist/commands/webhook/subscribe.js'))) {
    throw new Error('the CLI is not built: run `npx tsc -b packages/cli plugins/agent-openai` first');
  }
});

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-story-'));
});

afterEach(async () => {
  await running?.stop();
  running = undefined;
  await chat?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('the agent subscribes a new webhook through its terminal tool, and the subscription works at once', async () => {
  // Plain words only: terminal.allow refuses quotes, so the description is one word.
  const subscribe = 'hookwise webhook subscribe github-ci --events push --description CI-pushes';
  chat = await startChatServer([
    completion(null, [{ id: 'call_sub', command: subscribe }]),
    completion('Created the subscription github-ci for push events.'),
    completion('A push to main arrived.'),
  ]);
  // A user skill of the same name wins over the built-in one; the scripted model does not read it anyway.
  mkdirSync(join(dir, 'skills/webhook-subscriptions'), { recursive: true });
  writeFileSync(
    join(dir, 'skills/webhook-subscriptions/SKILL.md'),
    '---\nname: webhook-subscriptions\ndescription: Create webhook subscriptions with the hookwise CLI\n---\nRun `hookwise webhook subscribe <name> --events <csv>`.\n',
  );
  running = await startTestGateway({
    configDir: dir,
    config: [
      'platforms:',
      '  webhook:',
      '    enabled: true',
      '    extra:',
      '      host: 127.0.0.1',
      '      routes:',
      '        ops:',
      `          secret: ${ROUTE_SECRET}`,
      '          prompt: "Subscribe a webhook named {name} for {events} events"',
      '          skills: [webhook-subscriptions]',
      // An agent may subscribe only where its route lists the action, over MCP and the channel's REST alike.
      '          actions: { subscribe: {} }',
      'agent:',
      '  runner: openai',
      `  base_url: ${chat.baseUrl}`,
      '  model: scripted-model',
      '  api_key_env: STORY_KEY',
      '  tools: [terminal]',
      '  max_steps: 4',
      '  terminal:',
      '    allow: ["hookwise webhook subscribe **"]',
      'store:',
      '  backend: memory',
      '',
    ].join('\n'),
    env: { PATH: `${BIN}:${process.env.PATH}`, STORY_KEY: 'sk-story-key-abcdef' },
    pollMs: 50,
  });

  // 1. The webhook that asks for a subscription.
  const first = await post('ops', { name: 'github-ci', events: 'push' }, ROUTE_SECRET);
  expect(first).toEqual({ status: 202, body: { status: 'accepted', route: 'ops', event: '', delivery_id: expect.any(String) } });
  await running.waitForLog("response for route 'ops'");

  // 2. What the model saw and did.
  const [ask, followUp] = chat.requests;
  expect(ask.headers.authorization).toBe('Bearer sk-story-key-abcdef');
  const askMessages = ask.body.messages as Array<{ role: string; content: string }>;
  expect(askMessages[0].content).toContain('<skill name="webhook-subscriptions">');
  // The rendered prompt, fenced between the run's own delimiter lines (agent-kit's fenceUntrusted).
  expect(askMessages[1]).toEqual({
    role: 'user',
    content: expect.stringMatching(
      /\n<<<hookwise-payload-[0-9a-f]{24}>>>\nSubscribe a webhook named github-ci for push events\n<<<end-hookwise-payload-[0-9a-f]{24}>>>$/,
    ),
  });
  const toolMessage = (followUp.body.messages as Array<{ role: string; content: string; tool_call_id?: string }>)[3];
  expect(toolMessage.role).toBe('tool');
  expect(toolMessage.tool_call_id).toBe('call_sub');
  expect(toolMessage.content).toMatch(/^exit code: 0\n/);
  expect(toolMessage.content).toContain("Subscription 'github-ci' created through the gateway's job channel.");
  expect(running!.logText()).toContain('Created the subscription github-ci for push events.');

  // 3. The subscription exists, with a secret the gateway generated; the agent's output never shows it.
  const stored = JSON.parse(readFileSync(join(dir, 'webhook_subscriptions.json'), 'utf8'));
  expect(stored['github-ci']).toMatchObject({ events: ['push'], description: 'CI-pushes' });
  const secret = stored['github-ci'].secret as string | undefined;
  expect(typeof secret).toBe('string');
  expect(toolMessage.content).not.toContain(secret!);

  // 4. The running gateway accepts a request signed with it, and refuses a wrong signature; no restart.
  const accepted = await post('github-ci', { event_type: 'push', ref: 'refs/heads/main' }, secret!);
  expect(accepted).toEqual({ status: 202, body: { status: 'accepted', route: 'github-ci', event: 'push', delivery_id: expect.any(String) } });
  const refused = await post('github-ci', { event_type: 'push' }, 'not-the-secret');
  expect(refused).toEqual({ status: 401, body: { error: 'Invalid signature' } });
  await running.waitForLog("response for route 'github-ci'");
  expect(chat.requests).toHaveLength(3);
  expect(running!.fullLogText()).not.toContain('sk-story-key-abcdef');
});
