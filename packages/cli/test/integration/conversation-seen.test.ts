// A conversation is seen (issue 31): after a Telegram reply continues a route's conversation against a Bot API
// stand-in, the `conversation_continued` lifecycle event fires, GET /metrics counts it per route, the admin API and
// the dashboard's event page list the turns, and `hookwise deliveries show` prints them, through the running
// gateway's admin API and, once it has stopped, from the SQLite store's records.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeRunFile } from '@hookwise/gateway';
import { postSigned, startRecordingServer, startTestGateway, waitFor, type RecordingServer, type TestGateway } from '@hookwise/testing';
import { runCli } from '../cli-process';

jest.setTimeout(90_000);

const SECRET = 'conversation-seen-secret-0123456789';
const TG_SECRET = 'tg_seen_secret-0123456789';
const CHAT = 5151;
const ALICE = 2222222;

const agentDir = mkdtempSync(join(tmpdir(), 'hookwise-seen-agent-'));
const agent = join(agentDir, 'answer.js');
// The answer names how long the prompt was, so each turn's text is recognisable without echoing it whole.
writeFileSync(agent, `let p = ''; process.stdin.on('data', (c) => (p += c)).on('end', () => process.stdout.write('ANSWER(' + p.length + ')'));\n`);

let api: RecordingServer;
let gw: TestGateway | undefined;
// Ours, not the harness's: it stays after the gateway stops, for the CLI to read the store.
const configDir = mkdtempSync(join(tmpdir(), 'hookwise-seen-'));
let nextMessageId = 700;
const continued: Array<Record<string, unknown>> = [];

const config = (apiBase: string) => ({
  platforms: {
    telegram: { enabled: true, token: '123456:seen-test-token', api_base: apiBase },
    webhook: {
      enabled: true,
      extra: {
        routes: {
          alerts: {
            secret: SECRET,
            prompt: 'Alert: {title}',
            deliver: 'telegram',
            deliver_extra: { chat_id: String(CHAT) },
            conversation: { enabled: true, max_turns: 5, ttl_hours: 1, allow_from: [ALICE] },
          },
          tg: { source: 'telegram', secret: TG_SECRET, prompt: 'Inbound: {message.text}', deliver: 'log', allow_from: ['*'] },
        },
      },
    },
  },
  agent: { runner: 'command', command: [process.execPath, agent] },
  store: { backend: 'sqlite' },
  admin: { enabled: true, ui: true },
  metrics: { enabled: true },
});

/** What a timed-out wait shows: the gateway's log. */
const showLog = () => `log:\n${gw?.logText()}`;

const delivered = () => gw!.logs.filter((l) => /^delivered .* on route 'alerts'/.test(String(l.message))).length;

beforeAll(async () => {
  api = await startRecordingServer((req) =>
    req.path.endsWith('/getMe')
      ? { json: { ok: true, result: { id: 123456, is_bot: true, username: 'hw_bot' } } }
      : { json: { ok: true, result: { message_id: nextMessageId++, chat: { id: CHAT } } } },
  );
  gw = await startTestGateway({
    config: config(api.url),
    configDir,
    pollMs: 20,
  });
  gw.gateway.on('conversation_continued', (e) => continued.push({ ...e }));
  writeRunFile(gw.configDir, { pid: process.pid, url: gw.url, host: '127.0.0.1', port: gw.port, started_at: new Date().toISOString() });

  expect((await postSigned(gw, 'alerts', SECRET, { title: 'queue stuck' }, 'seen-1')).status).toBe(202);
  await waitFor('the first answer', () => delivered() === 1, { detail: showLog });
  // A reply as Telegram sends it (an Update whose message has reply_to_message), to the first answer (700).
  const update = {
    update_id: 424242,
    message: {
      message_id: 31,
      date: 1441645532,
      chat: { id: CHAT, type: 'private' },
      from: { id: ALICE, is_bot: false, first_name: 'Alice' },
      text: 'is it still stuck?',
      reply_to_message: { message_id: 700, date: 1441645000, chat: { id: CHAT, type: 'private' }, text: 'ANSWER(18)' },
    },
  };
  const reply = await gw.post('tg', JSON.stringify(update), { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TG_SECRET });
  expect(reply.body).toMatchObject({ status: 'accepted', route: 'alerts', turn: 2 });
  await waitFor('the second answer', () => delivered() === 2, { detail: showLog });
});
afterAll(async () => {
  await gw?.stop();
  await api?.close();
  rmSync(configDir, { recursive: true, force: true });
  rmSync(agentDir, { recursive: true, force: true });
});

describe('a conversation is seen', () => {
  it('fires conversation_continued and counts it per route in /metrics', async () => {
    expect(continued).toEqual([
      expect.objectContaining({
        route: 'alerts',
        inboundRoute: 'tg',
        deliveryId: 'tg:424242',
        conversation: expect.any(String),
        turn: 2,
        platform: 'telegram',
        from: `Telegram user ${ALICE} (Alice)`,
      }),
    ]);
    const text = await (await fetch(`${gw!.url}/metrics`)).text();
    expect(text).toMatch(/^hookwise_conversations_continued_total\{route="alerts",platform="telegram"\} 1$/m);
  });

  it('lists the turns in GET /api/deliveries/:id and on the event page', async () => {
    const res = (await (await fetch(`${gw!.url}/api/deliveries/tg%3A424242`)).json()) as {
      conversation: { turns: Array<{ kind: string; text: string; from?: string }>; turn: number; answers: number };
    };
    expect(res.conversation).toMatchObject({ turn: 2, answers: 2, platform: 'telegram', chat: String(CHAT), route: 'alerts' });
    expect(res.conversation.turns.map((t) => t.kind)).toEqual(['event', 'answer', 'reply', 'answer']);
    expect(res.conversation.turns[0].text).toBe('Alert: queue stuck');
    expect(res.conversation.turns[1].text).toBe('ANSWER(18)');
    expect(res.conversation.turns[2]).toMatchObject({ text: 'is it still stuck?', from: `Telegram user ${ALICE} (Alice)` });
    // The first job shows the same conversation, as its turn 1.
    const first = (await (await fetch(`${gw!.url}/api/deliveries/seen-1`)).json()) as { conversation: { turn: number } };
    expect(first.conversation.turn).toBe(1);
    const html = await (await fetch(`${gw!.url}/ui/deliveries/tg%3A424242`)).text();
    expect(html).toContain('<h2>Conversation</h2>');
    expect(html).toContain('data-turn="2"');
    expect(html).toContain(`reply from Telegram user ${ALICE} (Alice)`);
    expect(html).toContain('is it still stuck?');
  });

  it('prints the turns in `hookwise deliveries show`, through the admin API and then from the store', async () => {
    const viaApi = await runCli(['deliveries', 'show', 'tg:424242'], gw!.configDir);
    expect(viaApi.stderr).toBe('');
    expect(viaApi.stdout).toMatch(/ {2}conversation \S+ on telegram chat 5151 \(route 'alerts'\): this job's answer is turn 2, 2 answered so far\n/);
    expect(viaApi.stdout).toMatch(
      /\n {4}event \S+: Alert: queue stuck\n {4}answer \S+: ANSWER\(18\)\n {4}reply from Telegram user 2222222 \(Alice\) \S+: is it still stuck\?\n {4}answer /,
    );
    await gw!.stop();
    const fromStore = await runCli(['deliveries', 'show', 'tg:424242', '--json'], gw!.configDir);
    expect(fromStore.stderr).toBe('');
    expect(fromStore.code).toBe(0);
    const shown = JSON.parse(fromStore.stdout) as { conversation?: { turns: Array<{ kind: string }> } };
    expect(shown.conversation?.turns.map((t) => t.kind)).toEqual(['event', 'answer', 'reply', 'answer']);
    gw = undefined;
  });
});
