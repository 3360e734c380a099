// What a webhook secret must be: long enough that it cannot be guessed, and ASCII so that it matches in every
// sender style. Checked for config.yaml, WEBHOOK_SECRET and subscriptions (so `webhook subscribe --secret` too).
import { INSECURE_NO_AUTH } from '../config/schema';

/**
 * The shortest secret accepted. A plain-token style (GitLab's X-Gitlab-Token) sends the secret itself, so a short
 * one is found by guessing (a two-character token in two tries); 16 characters of a random secret
 * are out of reach of any rate of guesses the failed-authentication throttle lets through. Generated secrets
 * are 32 random bytes (43 characters). `INSECURE_NO_AUTH`, itself 16 characters, is not a secret.
 */
export const MIN_SECRET_LENGTH = 16;

/**
 * Why `secret` is refused, or undefined when it is fine. Non-ASCII secrets are refused rather than made to work:
 * HTTP header values reach Node as Latin-1 bytes, so a UTF-8 token could never equal its header, and senders
 * differ in how they encode a non-ASCII HMAC key.
 */
export function secretProblem(secret: string): string | undefined {
  if (secret === INSECURE_NO_AUTH) return undefined;
  if (secret.length < MIN_SECRET_LENGTH) {
    return `is ${secret.length} character(s) long; secrets must have at least ${MIN_SECRET_LENGTH} (a short token is guessed in a few tries): generate one with \`openssl rand -base64 32\` or let \`hookwise webhook subscribe\` make one`;
  }
  // Line breaks and tabs are ASCII too: public keys in PEM form (key-pair sources such as SendGrid) have them.
  if (/[^\t\n\r\x20-\x7e]/.test(secret)) {
    return 'contains characters outside ASCII (letters with accents, emoji) or control characters: those can never match in the plain-token style and senders encode them differently for HMAC; use ASCII only (e.g. `openssl rand -base64 32`)';
  }
  return undefined;
}

/**
 * Problems of the secrets at `where`, each naming its key: `route 'ci' secret is 2 character(s) long...`, or for
 * a list (`secrets:`, WEBHOOK_SECRET=new,old) `... secrets[1] is ...`.
 */
export function secretsProblems(where: string, secrets: readonly (string | undefined)[], asList = secrets.length > 1): string[] {
  const problems: string[] = [];
  secrets.forEach((secret, index) => {
    if (secret === undefined || secret === '') return;
    const problem = secretProblem(secret);
    if (problem) problems.push(`${where} ${asList ? `secrets[${index}]` : 'secret'} ${problem}`);
  });
  return problems;
}
