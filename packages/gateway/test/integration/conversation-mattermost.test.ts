// Conversations on Mattermost (issue 31), end to end over real HTTP against a REST API v4 stand-in (POST
// /api/v4/posts answered 201 with the Post, GET /api/v4/users/me): a route's answer is posted to a channel; a
// person's message in that channel arrives on the Mattermost inbound route as an outgoing webhook POST (form-encoded
// by default, JSON when the webhook says so; the fields of Mattermost's OutgoingWebhookPayload, the token among
// them) and, since the payload names no post it answers, continues the conversation whose latest answer is in that
// channel: the ORIGINAL route runs again, its agent (a command that echoes its prompt) sees the event, the first
// answer and the message, and its answer is posted to the same channel. allow_from names a user id or a username;
// a stranger runs nothing, and the gateway's own post coming back (Mattermost fires outgoing webhooks for posts
// made over the API too) continues nothing.
import { expectInOrder, type RecordedRequest, type RecordingServer } from '@hookwise/testing';
import { conversationHarness } from './conversation-harness';

jest.setTimeout(90_000);

const SECRET = 'conversation-alert-secret-0123456789';
/** The outgoing webhook's Token: Mattermost sends it in the body's `token` field. */
const MM_TOKEN = 'zmigewsanbbsdf59xnmduzypjc';
const TEAM = 'kwoknj9nwpypzgzy78wkw516qe';
const CHANNEL = 'hawos4dqtby53pd64o4a4cmeoo';
const ALICE = { id: 'rnina9994bde8mua79zqcg5hmo', name: 'alice' };
const BOB = { id: 'b0bb0bb0bb0bb0bb0bb0bb0bb0', name: 'bob' };
const STRANGER = { id: 'm4ll0rym4ll0rym4ll0rym4ll0', name: 'mallory' };
const BOT = { id: 'h00kw1seb0th00kw1seb0th00k', name: 'hookwise-bot' };

const conv = conversationHarness('mm', SECRET);
let api: RecordingServer;
let postN = 0;
let userPostN = 0;
/** Post ids as Mattermost makes them: 26 lower-case letters and digits. */
const postId = (prefix: string, n: number) => `${prefix}${String(n).padStart(26 - prefix.length, '0')}`;

const posts = () => api.requests.filter((r) => r.method === 'POST' && r.path === '/api/v4/posts');
const postBody = (r: RecordedRequest) => r.json as { channel_id: string; message: string; root_id?: string };
const delivered = () => conv.delivered('alerts');

const alert = (title: string) => conv.alert('alerts', title, `alert-${title}`);

/**
 * A message posted in the channel, as an outgoing webhook POSTs it: Mattermost's OutgoingWebhookPayload fields,
 * form-encoded (timestamp in seconds) or JSON (milliseconds), as the webhook's Content Type says.
 */
async function message(user: { id: string; name: string }, text: string, opts: { json?: boolean; post?: string; route?: string } = {}) {
  const route = opts.route ?? 'mm';
  userPostN += 1;
  const fields = {
    token: MM_TOKEN,
    team_id: TEAM,
    team_domain: 'someteam',
    channel_id: CHANNEL,
    channel_name: 'town-square',
    timestamp: opts.json ? 1445532266000 + userPostN : 1445532266 + userPostN,
    user_id: user.id,
    user_name: user.name,
    post_id: opts.post ?? postId('u', userPostN),
    text,
    trigger_word: '',
    file_ids: '',
  };
  if (opts.json) return conv.gw.post(route, JSON.stringify(fields), { 'content-type': 'application/json', accept: 'application/json' });
  const form = new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return conv.gw.post(route, form, { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' });
}

beforeAll(async () => {
  api = await conv.startApi((req) => {
    if (req.path === '/api/v4/users/me') return { json: { id: BOT.id, username: BOT.name, is_bot: true } };
    const body = req.json as { channel_id: string; message: string; root_id?: string };
    postN += 1;
    return {
      status: 201,
      json: { id: postId('p', postN), create_at: Date.now(), user_id: BOT.id, channel_id: body.channel_id, root_id: body.root_id ?? '', message: body.message },
    };
  });
  await conv.start({
    platforms: {
      mattermost: { enabled: true, api_base: api.url, token: 'mattermost-bot-token-0123456789' },
      webhook: {
        enabled: true,
        extra: {
          routes: {
            alerts: conv.answeredRoute('mattermost', CHANNEL, { max_turns: 4, ttl_hours: 1, allow_from: [ALICE.id, BOB.name] }),
            mm: { source: 'mattermost', secret: MM_TOKEN, prompt: 'Inbound: {text}', deliver: 'log', allow_from: ['*'] },
            // The same webhook's posts on a route that names the bot account: its posts are never replies.
            'mm-bot-aware': {
              source: 'mattermost',
              secret: MM_TOKEN,
              source_options: { ignore_users: [BOT.name] },
              prompt: 'Inbound: {text}',
              deliver: 'log',
              allow_from: ['*'],
            },
          },
        },
      },
    },
    agent: conv.agent,
    retry: { max_attempts: 2, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
    store: { backend: 'sqlite' },
  });
});

describe('conversations on Mattermost, through a real gateway', () => {
  it("continues the conversation from an allowed person's message in the channel, answering in the same channel", async () => {
    expect((await alert('disk full')).status).toBe(202);
    await conv.waitFor('the first answer', () => delivered() === 1);
    expect(postBody(posts()[0])).toMatchObject({ channel_id: CHANNEL, message: 'ECHO[Alert: disk full]' });

    const answer = await message(ALICE, 'why is it full?');
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ status: 'accepted', route: 'alerts', turn: 2 });
    await conv.waitFor('the second answer', () => delivered() === 2);
    const second = postBody(posts()[1]);
    expect(second.channel_id).toBe(CHANNEL);
    // The webhook named no thread, and the route posts to the channel itself: no root_id.
    expect(second.root_id).toBeUndefined();
    // The second run saw the event's prompt, the first answer and the message, in that order.
    expectInOrder(second.message, ['Alert: disk full', 'ECHO[Alert: disk full]', 'why is it full?']);
    expect(second.message).toContain(`Mattermost user @alice (${ALICE.id})`);
    expect(second.message).toContain('turn 2 of at most 4');
  });

  it('takes a JSON webhook body too, and a person allow_from names by username', async () => {
    const answer = await message(BOB, 'and the logs?', { json: true });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ status: 'accepted', route: 'alerts', turn: 3 });
    await conv.waitFor('the third answer', () => delivered() === 3);
    const third = postBody(posts()[2]);
    expect(third.channel_id).toBe(CHANNEL);
    expect(third.message).toContain('why is it full?');
    expect(third.message).toContain('and the logs?');
  });

  it("runs nothing for a stranger's message, nor for the gateway's own post coming back", async () => {
    const before = posts().length;
    const stranger = await message(STRANGER, 'do something else');
    expect(stranger.status).toBe(200);
    expect(stranger.body).toMatchObject({ status: 'ignored', reason: 'conversation_not_allowed' });
    expect(conv.gw.logText()).toContain(`user ${STRANGER.id} is not in conversation.allow_from of route 'alerts'`);

    // The third answer, posted by the bot, as the outgoing webhook sends it back (its post id is recorded).
    const own = await message(BOT, 'ECHO[...]', { post: postId('p', 3) });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ status: 'ignored', reason: 'conversation_own_message' });
    await new Promise((r) => setTimeout(r, 500));
    expect(posts().length).toBe(before);
    expect(delivered()).toBe(3);
  });

  it("ignores the bot account's post where source_options.ignore_users names the bot: the gateway's own message, never a run", async () => {
    const before = posts().length;
    const answer = await message(BOT, 'ECHO[...]', { route: 'mm-bot-aware', post: postId('p', 2) });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'ignored', reason: 'own_message' });
    await new Promise((r) => setTimeout(r, 300));
    expect(posts().length).toBe(before);
  });
});
