// Transforms and deliver-only routes (issue 36) over real HTTP. A command transform (a real node script, run in
// the agent sandbox with mode required) replaces the payload, adds text to the prompt, silences an event (200
// ignored, reason transform), cannot read the config dir's .env, and a crashing or slow one is bounded and loses
// nothing; a JSONata transform does the same three. A deliver_only route answers 200 delivered with the stand-in
// Telegram API's request asserted, 502 when the destination refuses, and no agent run starts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from '@hookwise/core';
import { isDone, until } from './worker-gateway';
import { signGeneric, startRecordingServer, startTestGateway, type RecordingServer, type TestGateway } from '@hookwise/testing';

jest.setTimeout(60_000);

const SECRET = 'transform-secret-abcdefghijklmnop';
const ENV_SECRET = 'env-file-secret-0123456789';

// The script lives outside the config dir (the sandbox hides that dir); it is shown to the run read-only.
const scriptDir = mkdtempSync(join(tmpdir(), 'hookwise-transform-'));
const script = join(scriptDir, 'slim.js');
writeFileSync(
  script,
  `let input = '';
process.stdin.on('data', (c) => (input += c)).on('end', () => {
  const p = JSON.parse(input);
  if (p.action === 'replace') return process.stdout.write(JSON.stringify({ slim: 'pr-' + p.number }));
  if (p.action === 'text') return process.stdout.write('summary of ' + p.number + '\\n');
  if (p.action === 'silent') return process.stdout.write('[SILENT]\\n');
  if (p.action === 'crash') process.exit(3);
  if (p.action === 'slow') return setTimeout(() => {}, 20000);
  if (p.action === 'env') {
    let seen;
    try { seen = require('fs').readFileSync(p.env, 'utf8'); } catch (e) { seen = 'unreadable ' + e.code; }
    return process.stdout.write('env: ' + seen);
  }
});
`,
);

let api: RecordingServer;
let gw: TestGateway | undefined;
let agentRuns = 0;

beforeAll(async () => {
  // chat -2 is refused, as Telegram refuses an unknown chat.
  api = await startRecordingServer((req) =>
    /"chat_id":"?-2\b/.test(JSON.stringify(req.json))
      ? { status: 400, json: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } }
      : { status: 200, json: { ok: true, result: { message_id: 7 } } },
  );
  const route = (extra: Record<string, unknown>) => ({
    secret: SECRET,
    deliver: 'log',
    prompt: 'P={slim} T={__transform__} E={__transform_error__}',
    ...extra,
  });
  gw = await startTestGateway({
    config: {
      platforms: {
        webhook: {
          enabled: true,
          extra: {
            routes: {
              cmd: route({ transform: { command: ['node', script], timeout_seconds: 2 } }),
              expr: route({
                transform: { expression: 'action = "replace" ? {"slim": "x-" & $string(number)} : action = "silent" ? "" : "note " & action' },
              }),
              only: { secret: SECRET, deliver_only: true, deliver: 'telegram', deliver_extra: { chat_id: '{chat}' }, prompt: 'Deploy {app} done' },
            },
          },
        },
        telegram: { enabled: true, token: '123456:test-token-abcdefghij', api_base: api.url, home_channel: '-1' },
      },
      agent: { runner: 'echo', sandbox: { mode: 'required' } },
      retry: { max_attempts: 1 },
      store: { backend: 'memory' },
      admin: { enabled: true },
    },
    files: { '.env': `SOMETHING=${ENV_SECRET}\n` },
    pollMs: 20,
  });
  gw.gateway.on('agent_started', (e) => (agentRuns += e.route === 'only' ? 1 : 0));
});
afterAll(async () => {
  await gw?.stop();
  await api?.close();
});

async function post(route: string, id: string, payload: Record<string, unknown>) {
  const body = JSON.stringify(payload);
  return gw!.post(route, body, { 'x-webhook-signature': signGeneric(SECRET, body), 'x-request-id': id });
}

async function prompt(id: string): Promise<string> {
  const job = (await until(gw!, id, isDone)) as Job & { prompt?: string };
  expect(job.status).toBe('done');
  return String(job.prompt);
}

describe('transform: command in the agent sandbox', () => {
  it('a JSON object replaces the payload', async () => {
    expect((await post('cmd', 'c-replace', { action: 'replace', number: 42 })).status).toBe(202);
    expect(await prompt('c-replace')).toBe('P=pr-42 T={__transform__} E={__transform_error__}');
  });

  it('other text is offered as {__transform__}, the payload kept', async () => {
    expect((await post('cmd', 'c-text', { action: 'text', number: 7, slim: 'orig' })).status).toBe(202);
    expect(await prompt('c-text')).toBe('P=orig T=summary of 7 E={__transform_error__}');
  });

  it('the silent marker answers 200 ignored with reason transform, and no job is made', async () => {
    const answer = await post('cmd', 'c-silent', { action: 'silent' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'ignored', reason: 'transform' });
    // The delivery id is claimed like a filtered event's.
    expect((await post('cmd', 'c-silent', { action: 'silent' })).body).toMatchObject({ status: 'duplicate' });
  });

  it('cannot read the .env of the config dir', async () => {
    const env = join(gw!.configDir, '.env');
    expect((await post('cmd', 'c-env', { action: 'env', env })).status).toBe(202);
    const text = await prompt('c-env');
    expect(text).toContain('T=env: unreadable');
    expect(text).not.toContain(ENV_SECRET);
  });

  it('a crashing and a slow command are bounded; the event is accepted with the failure recorded', async () => {
    expect((await post('cmd', 'c-crash', { action: 'crash', slim: 'kept' })).status).toBe(202);
    expect(await prompt('c-crash')).toMatch(/^P=kept T= E=the transform of route 'cmd' exited with code 3/);
    const started = Date.now();
    expect((await post('cmd', 'c-slow', { action: 'slow', slim: 'kept' })).status).toBe(202);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(await prompt('c-slow')).toMatch(/E=the transform of route 'cmd' did not finish within 2s/);
  });
});

describe('transform: JSONata expression', () => {
  it('replaces, adds text and silences', async () => {
    expect((await post('expr', 'e-replace', { action: 'replace', number: 5 })).status).toBe(202);
    expect(await prompt('e-replace')).toBe('P=x-5 T={__transform__} E={__transform_error__}');
    expect((await post('expr', 'e-text', { action: 'closed', slim: 's' })).status).toBe(202);
    expect(await prompt('e-text')).toBe('P=s T=note closed E={__transform_error__}');
    expect((await post('expr', 'e-silent', { action: 'silent' })).body).toMatchObject({ status: 'ignored', reason: 'transform' });
  });
});

describe('deliver_only', () => {
  it('delivers the rendered prompt within the request: 200 delivered, no agent run', async () => {
    const before = api.requests.length;
    const answer = await post('only', 'd-ok', { app: 'billing', chat: '-1' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'delivered', delivery_id: 'd-ok', destinations: ['telegram'] });
    const sent = api.requests.slice(before).filter((r) => r.path.endsWith('/sendMessage'));
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0].json)).toContain('Deploy billing done');
    // Recorded as a job like any other.
    expect((await until(gw!, 'd-ok', isDone)).status).toBe('done');
    expect(agentRuns).toBe(0);
  });

  it('answers 502 with the reason when the destination refuses', async () => {
    const answer = await post('only', 'd-refused', { app: 'billing', chat: '-2' });
    expect(answer.status).toBe(502);
    expect(String(answer.body.error)).toMatch(/chat not found/);
    expect(agentRuns).toBe(0);
  });
});
