// Nothing secret leaves in an answer (issue 29): a command agent that prints the route's secret, the Telegram
// bot token and a token of the gateway's environment (base64 and URL-encoded too) reaches the stand-in Telegram
// API with none of them, the stored answer has none, and the run facts say how many were scrubbed.
import type { Job } from '@hookwise/core';
import { WORKER_ADMIN_TOKEN, isDone, until } from './worker-gateway';
import { signGeneric, startRecordingServer, startTestGateway, testProcessEnv, type RecordingServer, type TestGateway } from '@hookwise/testing';

jest.setTimeout(60_000);

const ROUTE_SECRET = 'route-secret-abcdefghijklmnop';
const BOT_TOKEN = '123456:bot-token-ABCDEFGHIJKLMNOP';
const GH_TOKEN = 'ghp_environmentTokenXYZ0123456789';

let api: RecordingServer;
let gw: TestGateway | undefined;

beforeAll(async () => {
  api = await startRecordingServer(() => ({ status: 200, json: { ok: true, result: { message_id: 7 } } }));
});
afterAll(async () => {
  await gw?.stop();
  await api?.close();
});

it('a command agent printing secrets: the destination and the stored answer get none, the run says it scrubbed', async () => {
  const b64 = Buffer.from(GH_TOKEN).toString('base64');
  const leak = `echo "route: ${ROUTE_SECRET}"; echo "bot: ${BOT_TOKEN}"; echo "gh: ${GH_TOKEN}"; echo "b64: ${b64}"; echo "url: ${encodeURIComponent(BOT_TOKEN)}"`;
  gw = await startTestGateway({
    config: {
      platforms: {
        webhook: { enabled: true, extra: { routes: { leak: { secret: ROUTE_SECRET, deliver: 'telegram', deliver_extra: { chat_id: '-100200' } } } } },
        telegram: { enabled: true, token: BOT_TOKEN, api_base: api.url, home_channel: '-100200' },
      },
      agent: { runner: 'command', command: ['sh', '-c', leak], sandbox: { mode: 'off' } },
      store: { backend: 'memory' },
      admin: { enabled: true, token: WORKER_ADMIN_TOKEN },
    },
    env: testProcessEnv(undefined, { GH_TOKEN }),
    pollMs: 20,
  });
  const body = JSON.stringify({ action: 'opened' });
  const posted = await gw.post('leak', body, { 'x-webhook-signature': signGeneric(ROUTE_SECRET, body), 'x-request-id': 'leak-1' });
  expect(posted.status).toBe(202);
  await gw.waitForLog(/answer scrubbed: 5 secrets/);

  const job = (await until(gw, 'leak-1', isDone)) as Job & { usage?: { scrubbedSecrets?: number } };
  expect(job.status).toBe('done');
  const sent = api.requests.filter((r) => r.path.endsWith('/sendMessage'));
  expect(sent.length).toBe(1);
  const text = JSON.stringify(sent[0].json);
  expect(text).toContain('route: [REDACTED]');
  for (const secret of [ROUTE_SECRET, BOT_TOKEN, GH_TOKEN, b64, encodeURIComponent(BOT_TOKEN)]) expect(text).not.toContain(secret);
  // The stored answer, what a retry or another destination reads.
  const stored = JSON.stringify(job);
  expect(stored).toContain('[REDACTED]');
  for (const secret of [ROUTE_SECRET, BOT_TOKEN, GH_TOKEN, b64]) expect(stored).not.toContain(secret);
  expect(stored).toContain('"scrubbedSecrets":5');
});
