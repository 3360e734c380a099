// Conversations on iMessage through BlueBubbles (issue 31), end to end over real HTTP against a stand-in of the
// BlueBubbles server, on a SQLite store: a route's answer is sent to a group chat with the send-text API (POST
// /api/v1/message/text, answered {status: 200, message: "Message sent!", data: <the message>}, "REST API &
// Webhooks", docs.bluebubbles.app); a person answers it inline in iMessage, which the server posts to the inbound
// route as a `new-message` webhook (`{type, data}`, data as the server's MessageSerializer makes it, with
// threadOriginatorGuid: the answer; the webhook URL carries the route's secret, since BlueBubbles signs nothing).
// The ORIGINAL route runs again, its agent (a command that echoes its prompt) seeing the event, the first answer
// and the reply, and its answer is an inline reply to the person's message (selectedMessageGuid, partIndex, through
// the Private API). A plain message in the chat continues its latest answer; a stranger in the group runs nothing.
import { randomUUID } from 'node:crypto';
import { expectInOrder, type RecordedRequest, type RecordingServer } from '@hookwise/testing';
import { conversationHarness } from './conversation-harness';

jest.setTimeout(90_000);

const SECRET = 'conversation-alert-secret-0123456789';
const WEBHOOK_SECRET = 'bluebubbles-webhook-secret-0123456789';
const CHAT = 'iMessage;+;chat123456789';
const ALICE = '+15555550123';
const MALLORY = '+15555550199';

const conv = conversationHarness('bb', SECRET);
let api: RecordingServer;
let rowId = 5120;

const config = (apiBase: string) => ({
  platforms: {
    bluebubbles: { enabled: true, api_base: apiBase, password: 'bluebubbles-server-password', method: 'private-api' },
    webhook: {
      enabled: true,
      extra: {
        routes: {
          alerts: conv.answeredRoute('bluebubbles', CHAT, { max_turns: 4, ttl_hours: 1, allow_from: [ALICE] }),
          imessage: { source: 'bluebubbles', secret: WEBHOOK_SECRET, prompt: 'iMessage: {data.text}', deliver: 'log', allow_from: ['*'] },
        },
      },
    },
  },
  agent: conv.agent,
  retry: { max_attempts: 2, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
  store: { backend: 'sqlite' },
});

/** A message as the server's MessageSerializer writes it (the fields the webhook and the send answer share). */
function serialized(m: { guid: string; text: string; fromMe: boolean; address: string; threadOriginatorGuid?: string }) {
  rowId += 1;
  return {
    originalROWID: rowId,
    guid: m.guid,
    text: m.text,
    attributedBody: null,
    handle: m.fromMe ? null : { originalROWID: 12, address: m.address, service: 'iMessage', uncanonicalizedId: null, country: 'us' },
    handleId: m.fromMe ? 0 : 12,
    otherHandle: 0,
    attachments: [],
    subject: null,
    error: 0,
    dateCreated: Date.now(),
    dateRead: null,
    dateDelivered: null,
    isDelivered: true,
    isFromMe: m.fromMe,
    hasDdResults: false,
    isArchived: false,
    itemType: 0,
    groupTitle: null,
    groupActionType: 0,
    balloonBundleId: null,
    associatedMessageGuid: null,
    associatedMessageType: null,
    expressiveSendStyleId: null,
    threadOriginatorGuid: m.threadOriginatorGuid ?? null,
    hasPayloadData: false,
    threadOriginatorPart: m.threadOriginatorGuid ? '0:0:22' : null,
    replyToGuid: m.threadOriginatorGuid ?? null,
    chats: [{ originalROWID: 3, guid: CHAT, style: 43, chatIdentifier: 'chat123456789', isArchived: false, displayName: 'On call' }],
  };
}

/** `from` writes `text` in the group, inline to `inlineTo` or not: the server's new-message webhook. */
async function message(from: string, text: string, inlineTo?: string) {
  const guid = randomUUID().toUpperCase();
  written.push(guid);
  const body = JSON.stringify({
    type: 'new-message',
    data: serialized({ guid, text, fromMe: false, address: from, threadOriginatorGuid: inlineTo }),
  });
  return conv.gw.post(`imessage?secret=${WEBHOOK_SECRET}`, body);
}

const sent = () => api.requests.filter((r) => r.path === '/api/v1/message/text');
const sentBody = (r: RecordedRequest) => r.json as { chatGuid: string; message: string; method?: string; selectedMessageGuid?: string; partIndex?: number };
const guids: string[] = [];
/** The guids of the people's messages, oldest first. */
const written: string[] = [];
const delivered = () => conv.delivered('alerts');

beforeAll(async () => {
  api = await conv.startApi((req) => {
    if (req.path === '/api/v1/ping') return { json: { status: 200, message: 'Ping received!', data: 'pong' } };
    const guid = randomUUID().toUpperCase();
    guids.push(guid);
    const { message: text } = req.json as { message: string };
    return { json: { status: 200, message: 'Message sent!', data: serialized({ guid, text, fromMe: true, address: '' }) } };
  });
  await conv.start(config(api.url));
});

describe('conversations on iMessage (BlueBubbles), through a real gateway on SQLite', () => {
  it("continues the conversation from an inline reply, answering inline to the person's message in the same chat", async () => {
    expect((await conv.alert('alerts', 'disk full')).status).toBe(202);
    await conv.waitFor('the first answer', () => delivered() === 1);
    const first = sentBody(sent()[0]);
    expect(first).toMatchObject({ chatGuid: CHAT, message: 'ECHO[Alert: disk full]', method: 'private-api' });
    expect(first.selectedMessageGuid).toBeUndefined();

    const answer = await message(ALICE, 'why is it full?', guids[0]);
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ status: 'accepted', route: 'alerts', turn: 2 });
    await conv.waitFor('the second answer', () => delivered() === 2);
    const second = sentBody(sent()[1]);
    // Inline to the person's message, not to the gateway's answer they replied to.
    expect(second).toMatchObject({ chatGuid: CHAT, method: 'private-api', selectedMessageGuid: written.at(-1), partIndex: 0 });
    expect(written.at(-1)).not.toBe(guids[0]);
    expectInOrder(second.message, ['Alert: disk full', 'ECHO[Alert: disk full]', 'why is it full?']);
    expect(second.message).toContain(`iMessage user ${ALICE}`);
    expect(second.message).toContain('turn 2 of at most 4');
  });

  it("continues the chat's latest answer from a plain message, answering in the chat", async () => {
    const answer = await message(ALICE, 'and now?');
    expect(answer.body).toMatchObject({ status: 'accepted', route: 'alerts', turn: 3 });
    await conv.waitFor('the third answer', () => delivered() === 3);
    const third = sentBody(sent()[2]);
    expect(third.chatGuid).toBe(CHAT);
    expect(third.selectedMessageGuid).toBeUndefined();
    expect(third.message).toContain('why is it full?');
    expect(third.message).toContain('and now?');
  });

  it('runs nothing for a stranger in the group', async () => {
    const before = sent().length;
    const answer = await message(MALLORY, 'do something else', guids[0]);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'ignored', reason: 'conversation_not_allowed' });
    expect(conv.gw.logText()).toContain(`user ${MALLORY} is not in conversation.allow_from of route 'alerts'`);
    await new Promise((r) => setTimeout(r, 500));
    expect(sent().length).toBe(before);
  });
});
