// Approvals through Discord buttons (issue 31) end to end over real HTTP: a route with `approval: {via: discord}`
// holds its answer and posts the draft to a stand-in of Discord's API (Create Message with an Action Row of
// Approve / Deny buttons, https://discord.com/developers/docs/resources/message#create-message and
// https://discord.com/developers/docs/components/reference#button); the button's MESSAGE_COMPONENT interaction
// (the Interaction Structure of https://discord.com/developers/docs/interactions/receiving-and-responding, its data
// as in the Button's "Message Interaction Response Example") arrives on a route with the discord source, signed as
// Discord signs it: Ed25519 over X-Signature-Timestamp + body, hex in X-Signature-Ed25519, checked here with
// discord-interactions' verifyKey (Discord's own package). A stranger's click changes nothing, the approver's
// delivers once, a second click and a late click say what already happened, Deny delivers nothing.
import { generateKeyPairSync, sign as signEd25519 } from 'node:crypto';
import { verifyKey } from 'discord-interactions';
import {
  routesConfig,
  postSigned,
  startRecordingServer,
  startTestGateway,
  waitFor,
  type RecordedRequest,
  type RecordingServer,
  type TestGateway,
} from '@hookwise/testing';
import { isDone, shown, until } from './worker-gateway';

jest.setTimeout(60_000);

const SECRET = 'approval-discord-test-secret-0123456789';
const TOKEN = 'MTA5ODc2NTQzMjEwOTg3NjU0.GhIjKl.abcdefghijklmnopqrstuvwxyz012345';
const ANSWERS = '41771983423143937';
const APPROVALS = '41771983423143938';
const APPROVER = '53908232506183680';
const STRANGER = '80351110224678912';
const APPLICATION = '1265289281451069440';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
/** The application's public key as the Developer Portal shows it (64 hex digits): the source route's secret. */
const PUBLIC_KEY = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('hex');

let discord: RecordingServer;
/** The messages the stand-in created: the id it gave each, and its content. */
const created: Array<{ id: string; content: string }> = [];
/** The Edit Message calls on the draft whose content holds `name`. */
const editsOf = (name: string) => {
  const id = created.find((m) => m.content.includes(name))!.id;
  return discord.requests.filter((r) => r.method === 'PATCH' && r.path === `/api/v10/channels/${APPROVALS}/messages/${id}`);
};
let gw: TestGateway;

beforeAll(async () => {
  let message = 1265300000000000000n;
  discord = await startRecordingServer((req) => {
    if (req.method === 'GET') return { status: 200, json: { id: APPLICATION, username: 'hookwise', bot: true } };
    const content = (req.json as { content?: string }).content;
    // Create Message answers a new message; Edit Message (PATCH .../messages/{id}) the message it edited.
    const id = req.method === 'PATCH' ? req.path.split('/')[6] : String(++message);
    if (req.method === 'POST') created.push({ id, content: String(content) });
    return { status: 200, json: { id, channel_id: req.path.split('/')[4], content } };
  });
  const held = (approvers: string[]) => ({
    secret: SECRET,
    prompt: 'Ship {name}?',
    deliver: 'discord',
    deliver_extra: { chat_id: ANSWERS },
    approval: { approvers, via: 'discord', chat: APPROVALS },
  });
  gw = await startTestGateway({
    config: routesConfig(
      {
        held: held([`discord:${APPROVER}`]),
        pinned: held([`discord:${APPROVER}`]),
        interactions: { source: 'discord', secret: PUBLIC_KEY, deliver: 'log', prompt: 'interaction {type}', allow_from: [APPROVER] },
      },
      {
        platforms: {
          discord: { enabled: true, token: TOKEN, api_base: discord.url },
        },
        agent: { runner: 'echo' },
        retry: { max_attempts: 2, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
        store: { backend: 'memory' },
        admin: { enabled: true },
      },
    ),
    pollMs: 40,
  });
});
afterAll(async () => {
  await gw?.stop();
  await discord?.close();
});

async function send(route: string, id: string, name: string): Promise<void> {
  expect((await postSigned(gw, route, SECRET, { name }, id)).status).toBe(202);
}

const messagesTo = (channel: string, text: string): RecordedRequest[] =>
  discord.requests.filter((r) => r.method === 'POST' && r.path === `/api/v10/channels/${channel}/messages` && r.body.includes(text));

/** A timed-out wait shows the gateway's log. */
const waitOptions = { timeoutMs: 10_000, detail: () => `log:\n${gw.logText()}` };

interface Button {
  type: number;
  style: number;
  label: string;
  custom_id: string;
}
/** The draft of a delivery as the stand-in received it, checked request by request; its buttons' custom_ids. */
async function draftOf(deliveryId: string, name: string): Promise<{ approve: string; deny: string; message: string }> {
  const draft = await waitFor(`the draft of ${name}`, () => messagesTo(APPROVALS, name)[0], waitOptions);
  const job = await shown(gw, deliveryId);
  expect(draft.method).toBe('POST');
  expect(draft.path).toBe(`/api/v10/channels/${APPROVALS}/messages`);
  expect(draft.headers.authorization).toBe(`Bot ${TOKEN}`);
  expect(draft.headers['user-agent']).toMatch(/^DiscordBot \(\S+, \d+\.\d+\.\d+\)$/);
  const json = draft.json as { content: string; components: Array<{ type: number; components: Button[] }>; allowed_mentions: unknown };
  expect(json.content).toMatch(new RegExp(`^Approval needed: route \\w+, event ${deliveryId} \\(expires .+\\)\\n\\nShip ${name}\\?`));
  expect(json.allowed_mentions).toEqual({ parse: [] });
  expect(json.components).toEqual([
    {
      type: 1,
      components: [
        { type: 2, style: 3, label: 'Approve', custom_id: `hwa:a:${job.id}` },
        { type: 2, style: 4, label: 'Deny', custom_id: `hwa:d:${job.id}` },
      ],
    },
  ]);
  const [approve, deny] = json.components[0].components;
  return { approve: approve.custom_id, deny: deny.custom_id, message: created.find((m) => m.content === json.content)?.id ?? 'unknown' };
}

let interaction = 1265310000000000000n;
/** A signed interaction on the discord source's route; the signature is first checked with discord-interactions. */
async function interact(payload: Record<string, unknown>, { badSignature = false } = {}) {
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = signEd25519(null, Buffer.from(timestamp + body), privateKey).toString('hex');
  await expect(verifyKey(body, signature, timestamp, PUBLIC_KEY)).resolves.toBe(true);
  const sent = badSignature ? signature.replace(/^./, (c) => (c === '0' ? '1' : '0')) : signature;
  return gw.post('interactions', body, { 'content-type': 'application/json', 'x-signature-ed25519': sent, 'x-signature-timestamp': timestamp });
}

/** A click on a button of the draft: a MESSAGE_COMPONENT interaction (type 3) in the guild, or in a DM with `dm`. */
function click(customId: string, userId: string, username: string, { dm = false, badSignature = false, message = '1265300000000000001' } = {}) {
  const user = { id: userId, username, avatar: null, discriminator: '0', global_name: username, public_flags: 0 };
  return interact(
    {
      id: String(++interaction),
      application_id: APPLICATION,
      type: 3,
      token: `A_UNIQUE_TOKEN_${interaction}`,
      version: 1,
      channel_id: APPROVALS,
      app_permissions: '442368',
      locale: 'en-US',
      entitlements: [],
      message: { id: message, channel_id: APPROVALS, type: 0, content: 'Approval needed: ...', author: { id: APPLICATION, bot: true } },
      data: { component_type: 2, id: 2, custom_id: customId },
      ...(dm
        ? { user, context: 1 }
        : {
            guild_id: '290926798626357999',
            member: { user, roles: [], permissions: '2147483647', joined_at: '2017-03-13T19:19:14.040000+00:00' },
            context: 0,
          }),
    },
    { badSignature },
  );
}

/** What Discord must receive for a press: an ephemeral CHANNEL_MESSAGE_WITH_SOURCE with the text. */
const ephemeral = (text: RegExp) => ({ type: 4, data: { content: expect.stringMatching(text), flags: 64, allowed_mentions: { parse: [] } } });
const settle = () => new Promise((r) => setTimeout(r, 600)); // more than two rechecks of a held job (5 × 40 ms)

describe('approvals through Discord buttons', () => {
  it('the interactions route still answers the PING handshake, and a button that is no approval goes on as an event', async () => {
    const ping = await interact({ id: String(++interaction), application_id: APPLICATION, type: 1, token: 'A_UNIQUE_TOKEN', version: 1 });
    expect([ping.status, ping.body]).toEqual([200, { type: 1 }]);
    expect((await click('some_other_button', APPROVER, 'mason')).status).toBe(202);
  });

  it('holds the answer; a stranger changes nothing; the approver delivers it once; a second click says so', async () => {
    await send('held', 'dc-1', 'release-d1');
    const draft = await draftOf('dc-1', 'release-d1');
    await until(gw, 'dc-1', (job) => job.status === 'pending' && /waiting for approval/.test(job.note ?? ''));

    // A forged click (the signature does not verify) is refused before anything is decided.
    expect((await click(draft.approve, APPROVER, 'mason', { badSignature: true, message: draft.message })).status).toBe(401);
    const stranger = await click(draft.approve, STRANGER, 'mallory', { message: draft.message });
    expect([stranger.status, stranger.body]).toEqual([200, ephemeral(/not an approver/)]);
    await settle();
    expect(messagesTo(ANSWERS, 'release-d1')).toHaveLength(0);
    expect((await shown(gw, 'dc-1')).status).not.toBe('done');
    expect(gw.logText()).toMatch(new RegExp(`discord:${STRANGER} \\(mallory\\) pressed approve but is not an approver; nothing changed`));

    expect((await click(draft.approve, APPROVER, 'mason', { message: draft.message })).body).toEqual(ephemeral(/^Approved/));
    expect((await click(draft.approve, APPROVER, 'mason', { message: draft.message })).body).toEqual(
      ephemeral(new RegExp(`^Already approved by discord:${APPROVER} \\(mason\\)`)),
    );
    const done = await until(gw, 'dc-1', isDone);
    expect(done).toMatchObject({ status: 'done', errors: [] });
    expect(done.outcome ?? 'delivered').toBe('delivered');
    await settle();
    const delivered = messagesTo(ANSWERS, 'release-d1');
    expect(delivered).toHaveLength(1);
    expect(delivered[0].headers.authorization).toBe(`Bot ${TOKEN}`);
    expect((delivered[0].json as { content: string; components?: unknown }).components).toBeUndefined();

    // The draft is edited (Edit Message) to the decision, who made it and when, with no components left.
    const [edit, ...more] = editsOf('release-d1');
    expect(more).toHaveLength(0);
    expect(edit.headers.authorization).toBe(`Bot ${TOKEN}`);
    expect(edit.json).toEqual({ content: expect.any(String), allowed_mentions: { parse: [] }, components: [] });
    expect((edit.json as { content: string }).content).toMatch(
      new RegExp(
        `^Approved by discord:${APPROVER} \\(mason\\) at \\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z: route held, event dc-1; the answer is delivered\\.\\n\\nShip release-d1\\?`,
      ),
    );
  });

  it('Deny (clicked in a DM, by an approver pinned as discord:<id>) delivers nothing; a later Approve changes nothing', async () => {
    await send('pinned', 'dc-2', 'release-d2');
    const draft = await draftOf('dc-2', 'release-d2');
    expect((await click(draft.deny, APPROVER, 'mason', { dm: true, message: draft.message })).body).toEqual(ephemeral(/^Denied/));
    expect(await until(gw, 'dc-2', isDone)).toMatchObject({
      status: 'done',
      outcome: 'denied',
      note: expect.stringContaining(`denied by discord:${APPROVER}`),
    });
    expect((await click(draft.approve, APPROVER, 'mason', { message: draft.message })).body).toEqual(ephemeral(/^Already denied/));
    await settle();
    expect(messagesTo(ANSWERS, 'release-d2')).toHaveLength(0);
    const edits = editsOf('release-d2');
    expect(edits).toHaveLength(1);
    expect((edits[0].json as { content: string }).content).toMatch(
      new RegExp(`^Denied by discord:${APPROVER} \\(mason\\) at .+: route pinned, event dc-2; nothing is delivered\\.`),
    );
    expect(edits[0].json).toMatchObject({ components: [] });
  });
});
