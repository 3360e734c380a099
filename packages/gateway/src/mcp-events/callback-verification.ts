// Before a callback URL gets events, it must show that it wants them: the gateway POSTs a verification message
// with a random challenge, signed like a delivery, and the callback answers 2xx with the challenge (as the body's
// text, or as `challenge` of a JSON body). A URL that someone else's server answers (an internal service, a site
// that accepts any POST) cannot echo a challenge it never learnt to read, so a client cannot aim the gateway's
// deliveries at it. Redirects are not followed.
import { randomBytes } from 'node:crypto';
import { notifyKey, notifySignature } from '../observe/lifecycle-webhooks';
import { callbackReachProblem, type CallbackPolicy } from './callback-url';

export const SUBSCRIPTION_ID_HEADER = 'x-mcp-subscription-id';
/** The `type` of the verification message: deliveries have none, so a receiver tells them apart. */
export const VERIFICATION_TYPE = 'verification';
const TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 4096;

/** Headers of a signed post: the Standard Webhooks three and the subscription's id. */
export function signedHeaders(secret: string, subscriptionId: string, messageId: string, body: string): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': notifySignature(notifyKey(secret)!, messageId, timestamp, body),
    [SUBSCRIPTION_ID_HEADER]: subscriptionId,
  };
}

/** Posts the challenge; undefined when the callback echoed it, else why it is refused. */
export async function verifyCallback(url: URL, subscriptionId: string, secret: string, policy: CallbackPolicy): Promise<string | undefined> {
  const refused = await callbackReachProblem(url, policy);
  if (refused) return refused;
  const challenge = randomBytes(24).toString('base64url');
  const body = JSON.stringify({ type: VERIFICATION_TYPE, challenge });
  let text: string;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: signedHeaders(secret, subscriptionId, `verify_${randomBytes(12).toString('hex')}`, body),
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      return `the callback answered the verification with a redirect (HTTP ${res.status}); redirects are not followed: give the final URL`;
    }
    if (!res.ok) {
      await res.body?.cancel();
      return `the callback answered the verification with HTTP ${res.status}`;
    }
    text = (await res.text()).slice(0, MAX_ANSWER_BYTES).trim();
  } catch (err) {
    return (err as Error).name === 'TimeoutError'
      ? `the callback did not answer the verification within ${TIMEOUT_MS / 1000} s`
      : `the callback could not be reached (${(err as Error).message})`;
  }
  if (text === challenge) return undefined;
  try {
    if ((JSON.parse(text) as { challenge?: unknown }).challenge === challenge) return undefined;
  } catch {
    // Not JSON: the text itself was compared above.
  }
  return 'the callback did not echo the verification challenge (answer 2xx with the challenge as the body, or {"challenge": "..."})';
}
