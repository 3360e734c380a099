// What a Discord interaction is for approvals (issue 31). The fixtures follow Discord's documented shapes: the
// Interaction Structure of https://discord.com/developers/docs/interactions/receiving-and-responding (with the
// guild member of its APPLICATION_COMMAND example, "member is sent when the interaction is invoked in a guild, and
// user is sent when invoked in a DM") and the data of the Button's "Message Interaction Response Example" on
// https://discord.com/developers/docs/components/reference#button (`type: 3`, `data: {component_type: 2, id,
// custom_id}`); ids are made up. The answers follow the Interaction Response Structure (callback type 4
// CHANNEL_MESSAGE_WITH_SOURCE, message flag EPHEMERAL 1 << 6).
import { approvalButtonData, type ApprovalPress } from '@hookwise/core';
import { discordPressAnswer, discordPressOf, discordSenderOf, discordSource } from '../../src';

const JOB = '0b9f8a52-3c1d-4e6f-9a7b-1c2d3e4f5a6b';
const USER = { id: '53908232506183680', username: 'mason', avatar: 'a_d5efa99b3eeaa7dd43acca82f5692432', discriminator: '0', public_flags: 131141 };
const MESSAGE = {
  id: '1265300000000000001',
  channel_id: '645027906669510667',
  type: 0,
  content: 'Approval needed: route deploy, event d-1',
  author: { id: '1265289281451069440', username: 'hookwise', bot: true },
  components: [{ type: 1, id: 1, components: [{ type: 2, id: 2, style: 3, label: 'Approve', custom_id: approvalButtonData('approve', JOB) }] }],
};

/** A button's MESSAGE_COMPONENT interaction in a guild (member.user) or, with `dm`, in a DM (user). */
function buttonInteraction(customId: string, { dm = false } = {}): Record<string, unknown> {
  const where = dm
    ? { user: USER, context: 1 }
    : {
        guild_id: '290926798626357999',
        guild_locale: 'en-US',
        member: {
          user: USER,
          roles: ['539082325061836999'],
          permissions: '2147483647',
          pending: false,
          nick: null,
          joined_at: '2017-03-13T19:19:14.040000+00:00',
        },
        context: 0,
      };
  return {
    id: '1265300000000000002',
    application_id: '1265289281451069440',
    type: 3,
    token: 'A_UNIQUE_TOKEN',
    version: 1,
    channel_id: '645027906669510667',
    app_permissions: '442368',
    locale: 'en-US',
    entitlements: [],
    message: MESSAGE,
    data: { component_type: 2, id: 2, custom_id: customId },
    ...where,
  };
}

describe('discord presses', () => {
  it("reads a draft button's interaction as a press by the guild member who clicked", () => {
    expect(discordPressOf(buttonInteraction(approvalButtonData('approve', JOB)))).toEqual({
      jobId: JOB,
      decision: 'approve',
      presser: { platform: 'discord', id: '53908232506183680', username: 'mason' },
      message: { platform: 'discord', chat: '645027906669510667', messageId: '1265300000000000001' },
    });
    expect(discordPressOf(buttonInteraction(approvalButtonData('deny', JOB)))?.decision).toBe('deny');
  });

  it('reads the presser from `user` in a DM', () => {
    expect(discordPressOf(buttonInteraction(approvalButtonData('deny', JOB), { dm: true }))).toEqual({
      jobId: JOB,
      decision: 'deny',
      presser: { platform: 'discord', id: '53908232506183680', username: 'mason' },
      message: { platform: 'discord', chat: '645027906669510667', messageId: '1265300000000000001' },
    });
  });

  it('names who invoked an interaction: the guild member, or the user in a DM; a PING names nobody', () => {
    expect(discordSenderOf(buttonInteraction('click_me'))).toEqual({ id: '53908232506183680', from: 'Discord user 53908232506183680 (mason)' });
    expect(discordSenderOf(buttonInteraction('click_me', { dm: true }))?.id).toBe('53908232506183680');
    expect(discordSenderOf({ type: 1, id: '1', application_id: '2', token: 't', version: 1 })).toBeUndefined();
  });

  it('leaves other buttons, other interaction types and payloads without a user to go on as events', () => {
    expect(discordPressOf(buttonInteraction('click_me'))).toBeUndefined();
    expect(discordPressOf(buttonInteraction('hwa:a:../../etc'))).toBeUndefined();
    // An APPLICATION_COMMAND (type 2) or a MODAL_SUBMIT (type 5) whose data happens to carry the same custom_id.
    expect(discordPressOf({ ...buttonInteraction(approvalButtonData('approve', JOB)), type: 2 })).toBeUndefined();
    expect(discordPressOf({ ...buttonInteraction(approvalButtonData('approve', JOB)), type: 5 })).toBeUndefined();
    expect(discordPressOf({ ...buttonInteraction(approvalButtonData('approve', JOB)), data: 'hwa' })).toBeUndefined();
    const { member: _member, ...nobody } = buttonInteraction(approvalButtonData('approve', JOB));
    expect(discordPressOf(nobody)).toBeUndefined();
    expect(discordPressOf({ ...nobody, user: { username: 'no-id' } })).toBeUndefined();
    expect(discordPressOf({ type: 1 })).toBeUndefined();
  });

  it('answers with a message only the presser sees (CHANNEL_MESSAGE_WITH_SOURCE, EPHEMERAL), pinging nobody', () => {
    const press = discordPressOf(buttonInteraction(approvalButtonData('approve', JOB))) as ApprovalPress;
    expect(discordPressAnswer(press, 'You are not an approver of this answer; nothing changed.')).toEqual({
      status: 200,
      body: { type: 4, data: { content: 'You are not an approver of this answer; nothing changed.', flags: 64, allowed_mentions: { parse: [] } } },
    });
  });

  it('offers the reader and the answer to the gateway next to the PING handshake', () => {
    const source = discordSource.create();
    expect([source.pressOf, source.pressAnswer]).toEqual([discordPressOf, discordPressAnswer]);
    expect(source.replyOf).toBeUndefined();
    expect(source.eventAnswer).toBeUndefined();
    const req = { url: 'https://hooks.example.com/webhooks/discord', rawBody: Buffer.from('{"type":1}'), headers: {}, receivedAt: 0 };
    expect(source.handshake!(req, { type: 1 }, '')).toEqual({ status: 200, body: { type: 1 } });
    // A button press is no handshake: it reaches pressOf.
    expect(source.handshake!(req, buttonInteraction(approvalButtonData('approve', JOB)), '')).toBeUndefined();
  });
});
