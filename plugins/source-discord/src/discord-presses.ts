// What a Discord interaction means for approvals: a MESSAGE_COMPONENT interaction (type 3) whose
// button's `custom_id` is a draft's Approve / Deny data (deliverer-discord posts them) is a press, answered in the
// HTTP response itself with an interaction response, as Discord requires within three seconds.
//
// No replyOf: a person's message in a channel (a reply to the gateway's answer) reaches a bot only over the Gateway
// websocket (MESSAGE_CREATE); the Interactions Endpoint receives interactions (commands, components, modals) only.
import { approvalOfButtonData, type ApprovalPress, type HandshakeAnswer, type InboundSender } from '@hookwise/core';
import { isPayloadObject, payloadId } from '@hookwise/kit/source';

/** Interaction type MESSAGE_COMPONENT (https://discord.com/developers/docs/interactions/receiving-and-responding). */
const MESSAGE_COMPONENT = 3;
/** Interaction callback type CHANNEL_MESSAGE_WITH_SOURCE: respond with a message. */
const CHANNEL_MESSAGE_WITH_SOURCE = 4;
/** Message flag EPHEMERAL (1 << 6): only the user who pressed sees the message. */
const EPHEMERAL = 64;

/**
 * A button press on a draft: `data.custom_id` carries the draft's button data. The presser is `member.user` in a
 * guild and `user` in a DM ("member is sent when the interaction is invoked in a guild, and user is sent when
 * invoked in a DM"); `username` is Discord's unique user name, which approvers may list instead of the id.
 */
export function discordPressOf(payload: Record<string, unknown>): ApprovalPress | undefined {
  if (payload.type !== MESSAGE_COMPONENT || !isPayloadObject(payload.data)) return undefined;
  const button = approvalOfButtonData(payload.data.custom_id);
  if (!button) return undefined;
  const user = isPayloadObject(payload.member) && isPayloadObject(payload.member.user) ? payload.member.user : payload.user;
  if (!isPayloadObject(user)) return undefined;
  const id = payloadId(user.id);
  if (id === undefined) return undefined;
  const username = typeof user.username === 'string' && user.username !== '' ? user.username : undefined;
  // The message with the button: `message.id` in `channel_id` (also `channel.id` in newer payloads).
  const chat = payloadId(payload.channel_id) ?? payloadId(isPayloadObject(payload.channel) ? payload.channel.id : undefined);
  const messageId = payloadId(isPayloadObject(payload.message) ? payload.message.id : undefined);
  return { ...button, presser: { platform: 'discord', id, username }, ...(chat && messageId ? { message: { platform: 'discord', chat, messageId } } : {}) };
}

/** Who invoked an interaction (a command, a component, a modal): `member.user` in a guild, `user` in a DM; a PING names nobody. */
export function discordSenderOf(payload: Record<string, unknown>): InboundSender | undefined {
  const user = isPayloadObject(payload.member) && isPayloadObject(payload.member.user) ? payload.member.user : payload.user;
  const id = isPayloadObject(user) ? payloadId(user.id) : undefined;
  if (!id) return undefined;
  const username = isPayloadObject(user) && typeof user.username === 'string' && user.username !== '' ? user.username : undefined;
  return { id, from: `Discord user ${id}${username ? ` (${username})` : ''}` };
}

/**
 * The interaction response to a press: a new message only the presser sees (CHANNEL_MESSAGE_WITH_SOURCE with the
 * EPHEMERAL flag), saying what the press did. Not UPDATE_MESSAGE (type 7): that edits the draft for everyone, so a
 * stranger's click would replace the draft and its buttons with "not an approver" for the real approvers too. No
 * mention in the text pings anyone.
 */
export function discordPressAnswer(_press: ApprovalPress, text: string): HandshakeAnswer {
  return { status: 200, body: { type: CHANNEL_MESSAGE_WITH_SOURCE, data: { content: text, flags: EPHEMERAL, allowed_mentions: { parse: [] } } } };
}
