// Mattermost outgoing webhooks: a message in the watched channel (or starting with a trigger word) is POSTed as form
// fields or JSON, the webhook's token among them. Mattermost signs nothing: the `token` field, compared in constant
// time with the route's secrets, is the proof; it is taken out of the payload so that prompts and the store never
// hold it.
import { headerValue, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import { constantTimeEqual, defineSource, verdictForSecrets } from '@hookwise/kit/source';
import { mattermostOwnPost, mattermostReplyOf, mattermostSenderOf, type MattermostReplyOptions } from './mattermost-replies';
import { mattermostPayloadSchema } from './payload-schema';

/** Outgoing webhooks post channel messages; Mattermost gives them no type of their own. */
export const MATTERMOST_EVENT = 'outgoing_webhook';

const isForm = (req: SourceRequest): boolean => (headerValue(req.headers, 'content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');

/** The fields as Mattermost sent them, token included (form fields as strings; JSON as is). */
function fieldsOf(req: SourceRequest): Record<string, unknown> | undefined {
  const text = req.rawBody.toString('utf8');
  // fromEntries defines own properties, so a `__proto__` field cannot reach the prototype.
  if (isForm(req)) return Object.fromEntries(new URLSearchParams(text));
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function verifyMattermostToken(req: SourceRequest, secrets: readonly string[]): SourceVerdict {
  const token = fieldsOf(req)?.token;
  if (typeof token !== 'string' || token === '') return { ok: false, reason: 'no token field in the body', missing: true };
  return verdictForSecrets(secrets, (secret) => constantTimeEqual(token, secret), "token does not match (is the route's secret the outgoing webhook's Token?)");
}

/** The payload without the token. */
export function parseMattermostBody(req: SourceRequest): Record<string, unknown> | undefined {
  const fields = fieldsOf(req);
  if (!fields) return undefined;
  const { token: _token, ...payload } = fields;
  return payload;
}

export const mattermostSource = defineSource<MattermostReplyOptions>({
  id: 'mattermost',
  payloadSchema: mattermostPayloadSchema,
  description: 'Mattermost outgoing webhooks: the token field of the form or JSON body equals the route secret (taken out of the payload); delivery id post_id',
  options: {
    ignore_users: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      default: [],
      description:
        "User ids or usernames whose posts are the gateway's own: the bot account the mattermost deliverer posts with (Mattermost fires outgoing webhooks for the bot's posts too); they are ignored (reason own_message) and continue no conversation.",
    },
  },
  style: (options) => ({
    // Mattermost sends no header of its own: a route must pin this source (`source: mattermost`).
    headers: [],
    verify: verifyMattermostToken,
    parse: parseMattermostBody,
    eventType: () => MATTERMOST_EVENT,
    deliveryId: (_req, payload) => (typeof payload.post_id === 'string' && payload.post_id !== '' ? payload.post_id : undefined),
    replyOf: (payload) => mattermostReplyOf(payload, options),
    senderOf: (payload) => mattermostSenderOf(payload, options),
    ownMessage: (payload) => mattermostOwnPost(payload, options),
  }),
});
