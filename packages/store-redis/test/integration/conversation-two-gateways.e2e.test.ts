// A conversation continues across two real `hookwise gateway run` processes on one redis-server (issue 31, "Done
// means"): the records live in the store's memos, shared on Redis, so the reply may reach the gateway that did not
// deliver the answer. The Telegram Bot API is a stand-in (answering sendMessage with a Message); the reply is
// Telegram's documented "Message with a reply" Update, ids adapted (the gateway tests' documented-payloads.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ECHO_PROMPT_AGENT,
  expectInOrder,
  startRecordingServer,
  startRedisServer,
  type RecordedRequest,
  type RecordingServer,
  type RunningRedis,
} from '@hookwise/testing';
import {
  agentDirOf,
  requireBuiltCli,
  startGatewayProcess as startGateway,
  stopGatewayProcess as stopGateway,
  until,
  writeStandInAgent,
  type GatewayProcess as Gateway,
} from '../gateway-processes';
import { TELEGRAM_DOCUMENTED_NAME, telegramReply, telegramSentMessage } from '../../../gateway/test/integration/documented-payloads';

requireBuiltCli();
jest.setTimeout(90_000);

const TG_SECRET = 'tg_two_gateways_secret-0123456789';
const CHAT = 6161;
const ALICE = 3333333;

function configYaml(home: string, apiBase: string, redisUrl: string): string {
  const agentDir = agentDirOf(home);
  return `platforms:
  telegram: { enabled: true, token: "123456:two-gateways-token", api_base: "${apiBase}" }
  webhook:
    enabled: true
    extra:
      host: 127.0.0.1
      port: 0
      routes:
        alerts:
          secret: INSECURE_NO_AUTH
          prompt: "Alert: {title}"
          deliver: telegram
          deliver_extra: { chat_id: "${CHAT}" }
          conversation: { enabled: true, max_turns: 4, ttl_hours: 1, allow_from: [${ALICE}] }
        tg: { source: telegram, secret: "${TG_SECRET}", prompt: "Inbound: {message.text}", deliver: log, allow_from: ["*"] }
agent:
  runner: command
  command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(agentDir, 'agent.js'))}]
  sandbox: { writable: [${JSON.stringify(agentDir)}] }
store: { backend: redis, url: "${redisUrl}" }
`;
}

describe('a conversation across two gateway processes on one redis-server', () => {
  let redis: RunningRedis;
  let api: RecordingServer;
  let a: Gateway;
  let b: Gateway;
  let home: string;
  let nextMessageId = 800;
  const sent = () => api.requests.filter((r) => r.path.endsWith('/sendMessage'));
  const body = (r: RecordedRequest) => r.json as { chat_id: number; text: string; reply_parameters?: { message_id: number } };
  const outputs = () => `--- gateway A:\n${a?.output()}\n--- gateway B:\n${b?.output()}`;

  beforeAll(async () => {
    redis = await startRedisServer();
    api = await startRecordingServer((req) =>
      req.path.endsWith('/getMe')
        ? { json: { ok: true, result: { id: 123456, is_bot: true, username: 'hw_bot' } } }
        : { json: telegramSentMessage(nextMessageId++, req.json) },
    );
    home = mkdtempSync(join(tmpdir(), 'hookwise-conv-redis-'));
    // The stand-in agent answers with the prompt it got, so the second run shows what it saw.
    writeStandInAgent(home, ECHO_PROMPT_AGENT);
    writeFileSync(join(home, 'config.yaml'), configYaml(home, api.url, redis.url));
    [a, b] = await Promise.all([startGateway(home, 'a'), startGateway(home, 'b')]);
  }, 45_000);

  afterAll(async () => {
    await Promise.all([a, b].filter(Boolean).map((g) => stopGateway(g, 'SIGTERM')));
    await api?.close();
    await redis?.stop();
    if (home) for (const dir of [home, agentDirOf(home)]) rmSync(dir, { recursive: true, force: true });
  });

  it('continues, on one gateway, the conversation whose answer the other delivered', async () => {
    const alert = await fetch(`${a.url}/webhooks/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'conv-redis-1' },
      body: JSON.stringify({ title: 'replica lag' }),
    });
    expect(alert.status).toBe(202);
    const deliveredBy = () => [a, b].find((g) => g.output().includes("delivered conv-redis-1 on route 'alerts'"));
    await until(() => deliveredBy() !== undefined, outputs);
    expect(sent()).toHaveLength(1);
    expect(body(sent()[0])).toMatchObject({ chat_id: CHAT, text: 'ECHO[Alert: replica lag]' });

    // The reply goes to the gateway that did NOT deliver the answer: only the shared records can say what it answers.
    const other = deliveredBy() === a ? b : a;
    const update = telegramReply({ updateId: 515151, messageId: 41, chat: CHAT, from: ALICE, to: 800, text: 'which replica?' });
    const reply = await fetch(`${other.url}/webhooks/tg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TG_SECRET },
      body: update,
    });
    expect(reply.status).toBe(202);
    expect(await reply.json()).toMatchObject({ status: 'accepted', route: 'alerts', turn: 2 });
    expect(other.output()).toContain(`Telegram user ${ALICE} (${TELEGRAM_DOCUMENTED_NAME})'s reply on route 'tg' to conversation`);

    await until(() => sent().length === 2, outputs);
    const second = body(sent()[1]);
    expect(second.chat_id).toBe(CHAT);
    // The answer quotes the person's message (41), not the bot's answer it replied to (800).
    expect(second.reply_parameters).toMatchObject({ message_id: 41 });
    expectInOrder(second.text, ['Alert: replica lag', 'ECHO[Alert: replica lag]', 'which replica?']);
    expect(second.text).toContain('turn 2 of at most 4');
  });
});
