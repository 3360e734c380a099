// An approved answer goes out at once (issue 31): the decision makes the held job due (JobQueue.makeDue) and wakes
// the workers, instead of the answer waiting for the held job's next recheck. The gateway here polls every 60 s,
// so a held job's recheck is 5 minutes away: without the wake-up, nothing would be delivered within the test.
// SQLite store (a real file), Telegram's documented callback_query press (documented-payloads.ts) over real HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { routesConfig, postSigned, startRecordingServer, startTestGateway, waitFor, type RecordingServer, type TestGateway } from '@hookwise/testing';
import { telegramCallbackQuery, telegramSentMessage } from './documented-payloads';

jest.setTimeout(60_000);

const SECRET = 'approval-wake-secret-0123456789';
const TG_SECRET = 'telegram-secret-token-wake';
const APPROVER = 111;

let telegram: RecordingServer;
let gw: TestGateway;
const configDir = mkdtempSync(join(tmpdir(), 'hookwise-approval-wake-'));

/** The message id the stand-in gave each text it was sent: the press is on the draft's. */
const sentIds = new Map<string, number>();

beforeAll(async () => {
  let message = 100;
  telegram = await startRecordingServer((req) => {
    sentIds.set(String((req.json as { text?: string } | undefined)?.text), ++message);
    return { status: 200, json: telegramSentMessage(message, req.json) };
  });
  gw = await startTestGateway({
    config: routesConfig(
      {
        held: {
          secret: SECRET,
          prompt: 'Ship {name}?',
          deliver: 'telegram',
          deliver_extra: { chat_id: '-100' },
          approval: { approvers: [`telegram:${APPROVER}`], via: 'telegram', chat: '-200' },
        },
        tg: { source: 'telegram', secret: TG_SECRET, deliver: 'log', prompt: 'inbound', allow_from: [APPROVER] },
      },
      {
        platforms: {
          telegram: { enabled: true, token: '123456:test-token-abcdefghij', api_base: telegram.url },
        },
        agent: { runner: 'echo' },
        store: { backend: 'sqlite' },
      },
    ),
    configDir,
    pollMs: 60_000,
  });
});
afterAll(async () => {
  await gw?.stop();
  await telegram?.close();
  rmSync(configDir, { recursive: true, force: true });
});

/** A timed-out wait shows the gateway's log. */
const waitOptions = { detail: () => `log:\n${gw.logText()}` };

const to = (chat: string) => telegram.requests.filter((r) => String((r.json as { chat_id?: unknown } | undefined)?.chat_id) === chat);

it('delivers the approved answer without waiting for the recheck', async () => {
  expect((await postSigned(gw, 'held', SECRET, { name: 'release-9' }, 'wake-1')).status).toBe(202);
  const draft = await waitFor('the draft', () => to('-200')[0], waitOptions);
  const markup = (draft.json as { reply_markup: { inline_keyboard: Array<Array<{ callback_data: string }>> } }).reply_markup;
  // Telegram's documented callback query, pressed on the draft the bot sent (its message in the approval chat).
  const press = telegramCallbackQuery({
    updateId: 7001,
    from: APPROVER,
    username: 'ann',
    data: markup.inline_keyboard[0][0].callback_data,
    onMessage: { messageId: sentIds.get((draft.json as { text: string }).text)!, chat: -200 },
  });
  // Let the job be held (released with its recheck 5 minutes ahead) before the press.
  await waitFor('the hold', () => (/waiting for approval/.test(gw.logText()) || to('-200').length ? true : undefined), waitOptions);
  await new Promise((r) => setTimeout(r, 300));
  const answer = await gw.post('tg', press, { 'x-telegram-bot-api-secret-token': TG_SECRET });
  expect(answer.body).toMatchObject({ method: 'answerCallbackQuery', text: expect.stringContaining('Approved') });
  const delivered = await waitFor('the delivery', () => to('-100')[0], waitOptions);
  expect((delivered.json as { text: string }).text).toContain('Ship release-9?');
});
