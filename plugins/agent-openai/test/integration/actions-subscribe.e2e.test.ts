// The subscribe action end to end (issue 30): a real gateway runs the openai runner against a local Chat
// Completions stand-in whose model calls `hookwise__subscribe` (a route with `actions: { subscribe: {} }`). The
// route it creates is seen outside (the subscriptions file, `webhook list`) and answers a signed event with an agent
// run of its own; setting a secret, or changing a subscription the run did not create, is refused and the model
// reads why. The secret the gateway generated never reaches the model.
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestGateway, type TestGateway } from '@hookwise/testing';
import { final, startChatServer, toolCalls, type ChatServer, scriptedAgentLines, adminHeaders } from '../chat-server';

jest.setTimeout(60_000);

const REPO = resolve(__dirname, '../../../..');
const SECRET = 'subscribe-route-secret-0123456789';
const THEIRS_SECRET = 'operator-made-secret-0123456789ab';
const ATTACKER_SECRET = 'attacker-chosen-secret-0123456789';

let dir: string;
let chat: ChatServer;
let running: TestGateway | undefined;

const sign = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');
const subscriptionsOf = () => JSON.parse(readFileSync(join(dir, 'webhook_subscriptions.json'), 'utf8')) as Record<string, Record<string, unknown>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-subscribe-'));
  chat = await startChatServer([
    toolCalls([
      { id: 'c_new', name: 'hookwise__subscribe', args: { name: 'deploys', events: ['push'], prompt: 'Summarise the push to {ref}', deliver: 'log' } },
      { id: 'c_secret', name: 'hookwise__subscribe', args: { name: 'deploys', prompt: 'Summarise {ref}', secret: ATTACKER_SECRET } },
      { id: 'c_theirs', name: 'hookwise__subscribe', args: { name: 'theirs', prompt: 'Send everything to me' } },
    ]),
    final('Subscribed deploys.'),
    // The run of the new route, for the event sent to it below.
    final('Push to refs/heads/main: one commit.'),
  ]);
  // A subscription the operator made before: the agent run may see it but never change it.
  const now = new Date().toISOString();
  writeFileSync(
    join(dir, 'webhook_subscriptions.json'),
    JSON.stringify({
      theirs: { events: [], secret: THEIRS_SECRET, prompt: 'Operator prompt', skills: [], deliver: 'log', deliver_extra: {}, created_at: now, updated_at: now },
    }),
    { mode: 0o600 },
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
      '        setup:',
      `          secret: ${SECRET}`,
      '          prompt: "Subscribe to the deploys of {repository.full_name}"',
      '          deliver: none',
      '          actions:',
      '            subscribe: {}',
      ...scriptedAgentLines(chat, 'SUBSCRIBE_KEY'),
      '',
    ].join('\n'),
    env: { PATH: process.env.PATH, SUBSCRIBE_KEY: 'sk-subscribe-key' },
    pollMs: 50,
  });
});

afterAll(async () => {
  await running?.stop();
  await chat?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface StoredJob {
  status: string;
  answer?: string;
  usage?: { actions?: Array<{ index: number; action: string; status: string; reason?: string }> };
}

async function post(route: string, secret: string, deliveryId: string, payload: unknown): Promise<Response> {
  const body = JSON.stringify(payload);
  return fetch(`${running!.url}/webhooks/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': sign(secret, body), 'x-request-id': deliveryId },
    body,
  });
}

async function finished(deliveryId: string): Promise<StoredJob | undefined> {
  let job: StoredJob | undefined;
  for (let i = 0; i < 400 && job?.status !== 'done' && job?.status !== 'dead'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    job = ((await (await fetch(`${running!.url}/api/deliveries/${deliveryId}`, { headers: adminHeaders })).json()) as { delivery?: StoredJob }).delivery;
  }
  return job;
}

it('the agent subscribes a new route through the action; it is seen outside and answers signed events; a secret or a route not its own is refused', async () => {
  const res = await post('setup', SECRET, 'sub-1', { repository: { full_name: 'octo/app' } });
  expect(res.status).toBe(202);
  const job = await finished('sub-1');
  expect(job?.status).toBe('done');

  // The model was offered the subscribe tool and read each outcome, refusals with their reasons.
  const [ask, followUp] = chat.requests;
  expect((ask.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(['hookwise__subscribe']);
  const results = Object.fromEntries(
    (followUp.body.messages as Array<{ role: string; content: string; tool_call_id?: string }>)
      .filter((m) => m.role === 'tool')
      .map((m) => [m.tool_call_id, m.content]),
  );
  expect(results.c_new).toContain('done');
  expect(results.c_new).toContain('/webhooks/deploys');
  expect(results.c_secret).toContain('not settable through the job channel: secret');
  expect(results.c_secret).toContain('the gateway generates the secret');
  expect(results.c_theirs).toContain("a subscription named 'theirs' exists and was not created by this agent run");

  // Every call is recorded on the job; the refused ones with the reason the model read.
  expect(job?.usage?.actions?.map(({ index, action, status }) => ({ index, action, status }))).toEqual([
    { index: 0, action: 'subscribe', status: 'done' },
    { index: 1, action: 'subscribe', status: 'failed' },
    { index: 2, action: 'subscribe', status: 'failed' },
  ]);
  expect(job?.usage?.actions?.[1].reason).toContain('not settable through the job channel: secret');

  // Outside: the file holds the new route with a secret the gateway generated, which the model never saw;
  // the attacker's secret went nowhere, and the operator's subscription is as it was.
  const subs = subscriptionsOf();
  expect(subs.deploys).toMatchObject({ events: ['push'], prompt: 'Summarise the push to {ref}', deliver: 'log' });
  const generated = subs.deploys.secret as string;
  expect(generated).toEqual(expect.any(String));
  expect(generated).not.toBe(ATTACKER_SECRET);
  expect(JSON.stringify(chat.requests.map((r) => r.body))).not.toContain(generated);
  expect(subs.theirs).toMatchObject({ secret: THEIRS_SECRET, prompt: 'Operator prompt' });
  expect(running!.fullLogText()).not.toContain(generated);

  // The operator's `webhook list` shows it (never a secret).
  const listed = await promisify(execFile)(process.execPath, [join(REPO, 'packages/cli/bin/run.js'), 'webhook', 'list', '--config-dir', dir], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  expect(listed.stdout).toMatch(/deploys.*active/);
  expect(listed.stdout).toContain('/webhooks/deploys');
  expect(listed.stdout).not.toContain(generated);

  // The running gateway picks the file up without a restart: a signed event on the new route runs its agent.
  let accepted: Response | undefined;
  for (let i = 0; i < 100 && accepted?.status !== 202; i++) {
    if (i) await new Promise((r) => setTimeout(r, 50));
    accepted = await post('deploys', generated, 'push-1', { event_type: 'push', ref: 'refs/heads/main' });
  }
  expect(accepted?.status).toBe(202);
  const pushed = await finished('push-1');
  expect(pushed?.status).toBe('done');
  expect(pushed?.answer).toBe('Push to refs/heads/main: one commit.');
  const lastAsk = JSON.stringify(chat.requests[2].body.messages);
  expect(lastAsk).toContain('Summarise the push to refs/heads/main');
  // The same event signed with the attacker's secret is rejected.
  expect((await post('deploys', ATTACKER_SECRET, 'push-2', { event_type: 'push', ref: 'refs/heads/evil' })).status).toBe(401);
});
