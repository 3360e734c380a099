// Approval drafts (issue 31) against a local stand-in for Discord's API. Wire format: Create Message
// (https://discord.com/developers/docs/resources/message#create-message) with `components`: an Action Row (type 1)
// of Buttons (type 2; style 3 Success, 4 Danger; custom_id 1-100 characters) as the components reference
// (https://discord.com/developers/docs/components/reference#button) and its "Legacy Message Component Behavior"
// (content next to components, no IS_COMPONENTS_V2 flag) describe them.
import { approvalButtonData, type ApprovalDraft, type Deliverer } from '@hookwise/core';
import { createTestPluginContext, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import { discordPlatform, draftNonce, USER_AGENT, type ChannelApiOptions } from '@hookwise/plugin-deliverer-discord';

const TOKEN = 'MTA5ODc2NTQzMjEwOTg3NjU0.GhIjKl.abcdefghijklmnopqrstuvwxyz012345';
const HOOK_TOKEN = 'w3bh00k-t0ken-ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const HOME = '41771983423143936';
const APPROVALS = '41771983423143938';
const JOB = '0b9f8a52-3c1d-4e6f-9a7b-1c2d3e4f5a6b';

const draft = (text = 'Approval needed: route deploy, event d-1\n\nShip @everyone?'): ApprovalDraft => ({
  jobId: JOB,
  route: 'deploy',
  deliveryId: 'd-1',
  text,
  expiresAt: Date.UTC(2026, 0, 2),
  approveData: approvalButtonData('approve', JOB),
  denyData: approvalButtonData('deny', JOB),
});

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer(() => ({ status: 200, json: { id: '1265300000000000001', channel_id: APPROVALS, content: 'x' } }));
});
afterEach(() => server.close());

function deliverer(overrides: Partial<ChannelApiOptions> = {}): Deliverer {
  const options: ChannelApiOptions = { api_base: server.url, token: TOKEN, home_channel: HOME, timeout_seconds: 5, ...overrides };
  return discordPlatform.createDeliverer(options, createTestPluginContext().ctx);
}
const post = (d: Deliverer, chat?: string, text?: string) => d.approval!.postDraft(draft(text), { chat, signal: AbortSignal.timeout(5000) });

describe('discord approval drafts', () => {
  it('has an approval facet for pressers of platform discord, and no conversation facet (replies arrive only over the Gateway websocket)', () => {
    const d = deliverer();
    expect(d.approval?.platform).toBe('discord');
    expect(d.conversation).toBeUndefined();
  });

  it('POSTs the draft to the approval chat with the bot token: content and an Action Row of Approve (Success) and Deny (Danger) buttons', async () => {
    expect(await post(deliverer(), APPROVALS)).toEqual({ chat: APPROVALS, messageId: '1265300000000000001' });
    const [req] = server.requests;
    expect([req.method, req.path]).toEqual(['POST', `/api/v10/channels/${APPROVALS}/messages`]);
    expect(req.headers.authorization).toBe(`Bot ${TOKEN}`);
    expect(req.headers['user-agent']).toBe(USER_AGENT);
    expect(req.json).toEqual({
      content: 'Approval needed: route deploy, event d-1\n\nShip @everyone?',
      allowed_mentions: { parse: [] },
      components: [
        {
          type: 1,
          components: [
            { type: 2, style: 3, label: 'Approve', custom_id: `hwa:a:${JOB}` },
            { type: 2, style: 4, label: 'Deny', custom_id: `hwa:d:${JOB}` },
          ],
        },
      ],
      nonce: draftNonce(JOB),
      enforce_nonce: true,
    });
    const ids = (req.json as { components: Array<{ components: Array<{ custom_id: string }> }> }).components[0].components.map((b) => b.custom_id);
    for (const id of ids) expect(id.length).toBeLessThanOrEqual(100);
    expect(draftNonce(JOB).length).toBeLessThanOrEqual(25);
  });

  it('falls back to home_channel, keeps the same nonce when posted again, and cuts content to 2000 characters', async () => {
    await post(deliverer());
    await post(deliverer(), undefined, 'x'.repeat(2500));
    expect(server.requests.map((r) => r.path)).toEqual([`/api/v10/channels/${HOME}/messages`, `/api/v10/channels/${HOME}/messages`]);
    const [first, second] = server.requests.map((r) => r.json as { nonce: string; content: string });
    expect(second.nonce).toBe(first.nonce);
    expect(second.content).toHaveLength(2000);
  });

  it('refuses a webhook-only config before any request: a channel webhook cannot post buttons', async () => {
    const d = deliverer({ token: undefined, home_channel: undefined, webhook_url: `${server.url}/api/webhooks/123/${HOOK_TOKEN}` });
    const err = await rejectionOf(post(d, APPROVALS));
    expect(err.code).toBe('HW_E_DELIVERY_AUTH');
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/need platforms\.discord\.token .*a channel webhook \(webhook_url\) cannot post buttons/);
    expect(err.message).not.toContain(HOOK_TOKEN);
    expect(server.requests).toHaveLength(0);
  });

  it('posts the draft with the bot beside a channel webhook, and refuses one without a chat, naming what to set', async () => {
    // Answers go through the webhook; the draft, which needs a chat and buttons, goes to approval.chat with the bot.
    const both = deliverer({ home_channel: undefined, webhook_url: `${server.url}/api/webhooks/123/${HOOK_TOKEN}` });
    expect((await post(both, APPROVALS)).chat).toBe(APPROVALS);
    expect(server.requests.map((r) => r.path)).toEqual([`/api/v10/channels/${APPROVALS}/messages`]);
    const err = await rejectionOf(post(both));
    expect(err.code).toBe('HW_E_DELIVERY_TARGET');
    expect(err.message).toMatch(/has no chat: set approval\.chat on the route or platforms\.discord\.home_channel/);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses an approval chat that is no channel id, and reads Missing Permissions as a target failure', async () => {
    expect((await rejectionOf(post(deliverer(), '../../users/@me'))).code).toBe('HW_E_DELIVERY_TARGET');
    expect(server.requests).toHaveLength(0);
    server.queue({ status: 403, json: { message: 'Missing Permissions', code: 50013 } });
    const err = await rejectionOf(post(deliverer(), APPROVALS));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(err.message).toContain('50013');
    expect(err.message).not.toContain(TOKEN);
  });
});
