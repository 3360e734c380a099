// What a Twilio webhook means for conversations: an incoming SMS (the Messaging webhook's form fields
// From, To, Body, MessageSid; SmsStatus `received`) continues the conversation of the latest answer the gateway
// sent to that number. SMS names no message it answers, so the reply points at the chat alone (messageId ''), and
// deliverer-sms's conversation facet (`byChat`) records each answer as its chat's latest. The platform is `sms`,
// the deliverer's, not this source's id `twilio`.
import type { InboundReply, InboundSender } from '@hookwise/core';
import { payloadId } from '@hookwise/kit/source';

/** The platform name of SMS messages, the one deliverer-sms's conversation facet carries. */
export const SMS_PLATFORM = 'sms';

/**
 * A phone number in E.164, as Twilio writes From for SMS and MMS. Other channels of the same webhook prefix it
 * (`whatsapp:+1...`, `rcs:...`, `messenger:...`): those are no SMS, and their answers would not go back by SMS.
 */
const E164 = /^\+[1-9]\d{6,14}$/;

const field = (payload: Record<string, unknown>, name: string): string | undefined => {
  const value = payload[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * An opt-out: Twilio's default keywords for long codes (the whole message, any case), or `OptOutType: STOP` where a
 * Messaging Service's Advanced Opt-Out matched its own. Twilio then blocks messages to that number (error 21610),
 * so the SMS continues nothing. START and HELP (also `YES`, an opt-in keyword) stay replies: to a subscribed
 * number they are ordinary words.
 */
const OPT_OUT = /^\s*(stop|stopall|unsubscribe|cancel|end|quit|revoke|optout)\s*$/i;
const isOptOut = (payload: Record<string, unknown>, body: string): boolean => OPT_OUT.test(body) || field(payload, 'OptOutType')?.toUpperCase() === 'STOP';

/** Statuses of an incoming message; a status callback of a sent one says `sent`, `delivered`, `failed`, ... */
const isIncoming = (status: string | undefined): boolean => status === undefined || status === 'received';

/**
 * An incoming SMS from `From` (in E.164), with its `Body`: a reply in the chat of that number. Status callbacks of
 * sent messages, calls, Conversations events (which carry EventType) and opt-outs are none.
 */
export function twilioReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  const from = field(payload, 'From');
  const body = field(payload, 'Body');
  const sid = payloadId(payload.MessageSid) ?? payloadId(payload.SmsSid);
  if (from === undefined || !E164.test(from) || body === undefined || sid === undefined) return undefined;
  if (payload.EventType !== undefined || !isIncoming(field(payload, 'SmsStatus')) || !isIncoming(field(payload, 'MessageStatus'))) return undefined;
  if (isOptOut(payload, body)) return undefined;
  return { to: { platform: SMS_PLATFORM, chat: from, messageId: '' }, userId: from, from: `SMS sender ${from}`, text: body };
}

/** Who sent an incoming SMS (or called): `From`, a number in E.164; a status callback of a sent message names nobody. */
export function twilioSenderOf(payload: Record<string, unknown>): InboundSender | undefined {
  const from = field(payload, 'From');
  if (from === undefined || !E164.test(from) || !isIncoming(field(payload, 'SmsStatus')) || !isIncoming(field(payload, 'MessageStatus'))) return undefined;
  return { id: from, from: `SMS sender ${from}` };
}
