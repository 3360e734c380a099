// Over-HTTP tests of the Slack source: the conformance kit on a route pinned to `source: slack` (with the
// url_verification and ssl_check handshakes), then what the kit cannot express for Slack, whose delivery ids
// (event_id, trigger_id) are inside the signed body: retries, rotation, interactivity and slash commands.
import { createHmac, randomBytes } from 'node:crypto';
import { verifySlackRequest } from '@slack/bolt';
import { describeSourceOverHttp, startTestGateway, type TestGateway } from '@hookwise/testing';
import { APP_MENTION, BLOCK_ACTIONS, BLOCK_ACTIONS_FORM, DOCUMENTED_SIGNING_EXAMPLE, URL_VERIFICATION } from '../fixtures';

const SECRETS: [string, string] = [randomBytes(16).toString('hex'), randomBytes(16).toString('hex')];
const WRONG = randomBytes(16).toString('hex');
const FORM = 'application/x-www-form-urlencoded';

/** Slack's scheme; Bolt's verifier checks each signature before it is sent. */
function slackHeaders(secret: string, timestamp: number, body: Buffer | string): Record<string, string> {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(body).digest('hex')}`;
  verifySlackRequest({
    signingSecret: secret,
    body: body.toString(),
    headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp },
    nowMilliseconds: timestamp * 1000,
  });
  return { 'X-Slack-Signature': signature, 'X-Slack-Request-Timestamp': String(timestamp) };
}

describeSourceOverHttp('Slack', {
  source: 'slack',
  // A chat source's route names who may start a run (allow_from); anyone, for the conformance cases.
  route: { allow_from: ['*'] },
  secrets: SECRETS,
  body: APP_MENTION,
  // The Events API's delivery id is the body's event_id: one per request the kit makes.
  bodyFor: ({ deliveryId }) => JSON.stringify({ ...JSON.parse(APP_MENTION), event_id: `Ev${deliveryId}` }),
  expectedDeliveryId: (deliveryId) => `Ev${deliveryId}`,
  event: 'app_mention',
  sign: ({ body, key, timestamp }) => slackHeaders(key === 'wrong' ? WRONG : SECRETS[key], timestamp, body),
  staleSeconds: 600,
  handshakes: [
    {
      name: 'url_verification',
      body: URL_VERIFICATION,
      // docs.slack.dev/reference/events/url_verification: 200, text/plain, the challenge.
      expect: { status: 200, contentType: /^text\/plain/, body: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' },
    },
    {
      name: 'slash command ssl_check',
      body: 'ssl_check=1&token=xyzz0WbapA4vBCDEFasx0q6G',
      contentType: FORM,
      expect: { status: 200, body: '' },
    },
  ],
});

describe('Slack over real HTTP: one body per event, interactivity and slash commands', () => {
  let gw: TestGateway;
  let counter = 0;
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const mention = () => {
    const eventId = `Ev${process.pid}X${Date.now()}X${++counter}`;
    return { eventId, body: JSON.stringify({ ...JSON.parse(APP_MENTION), event_id: eventId }) };
  };

  beforeAll(async () => {
    const route = { source: 'slack', secrets: SECRETS, allow_from: ['*'] };
    gw = await startTestGateway({
      config: {
        platforms: {
          webhook: {
            enabled: true,
            extra: {
              rate_limit: 1000,
              routes: { slack: route, rotated: { ...route, secrets: [SECRETS[0]] }, mentions: { ...route, events: ['app_mention', 'slash_command'] } },
            },
          },
        },
        store: { backend: 'memory' },
      },
    });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  const send = (routeName: string, body: string, secret = SECRETS[0], contentType = 'application/json', extra: Record<string, string> = {}) =>
    gw.post(routeName, body, { 'content-type': contentType, ...slackHeaders(secret, nowSeconds(), body), ...extra });

  it("answers Slack's retry of an accepted event (X-Slack-Retry-Num, same event_id) as a duplicate", async () => {
    const { eventId, body } = mention();
    const first = await send('slack', body);
    expect(first.body).toEqual({ status: 'accepted', route: 'slack', event: 'app_mention', delivery_id: eventId });
    const retry = await send('slack', body, SECRETS[0], 'application/json', { 'X-Slack-Retry-Num': '1', 'X-Slack-Retry-Reason': 'http_timeout' });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ status: 'duplicate', delivery_id: eventId });
  });

  it('accepts either secret of a rotation and refuses the old one once it is removed', async () => {
    expect((await send('slack', mention().body, SECRETS[1])).status).toBe(202);
    expect((await send('rotated', mention().body, SECRETS[0])).status).toBe(202);
    expect((await send('rotated', mention().body, SECRETS[1])).status).toBe(401);
  });

  it('accepts a block_actions interaction (form payload=) named block_actions, with its trigger_id as delivery id', async () => {
    const res = await send('slack', BLOCK_ACTIONS_FORM, SECRETS[0], FORM);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'accepted', route: 'slack', event: 'block_actions', delivery_id: BLOCK_ACTIONS.trigger_id });
  });

  it('accepts the documented slash command (plain form fields) as slash_command, and filters by event type', async () => {
    const res = await send('mentions', DOCUMENTED_SIGNING_EXAMPLE.body, SECRETS[0], FORM);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      status: 'accepted',
      route: 'mentions',
      event: 'slash_command',
      delivery_id: '398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    });
    const ignored = await send('mentions', BLOCK_ACTIONS_FORM.replace('12321423423', '12321423424'), SECRETS[0], FORM);
    expect(ignored.body).toEqual({ status: 'ignored', event: 'block_actions' });
  });
});
