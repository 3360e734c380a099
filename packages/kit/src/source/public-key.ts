// Public keys held in route secrets (Discord's Ed25519 key, SendGrid's P-256 key), imported once and cached:
// importing a key costs more than verifying with it, and route secrets rarely change.
import type { KeyObject } from 'node:crypto';
import { matchingSecretIndex } from './signature';

// Bounded because a config reload may bring new secrets; clearing all at the bound is enough for configuration.
const CACHE_LIMIT = 64;

/**
 * Wraps `parse` (secret -> key, undefined when the secret is no such key; it may throw) with a bounded cache, so
 * each secret is parsed once and a secret that is no key stays refused without being parsed again.
 */
export function cachedPublicKeys(parse: (secret: string) => KeyObject | undefined): (secret: string) => KeyObject | undefined {
  const cache = new Map<string, KeyObject | null>();
  return (secret) => {
    const cached = cache.get(secret);
    if (cached !== undefined) return cached ?? undefined;
    let key: KeyObject | null;
    try {
      key = parse(secret) ?? null;
    } catch {
      key = null;
    }
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(secret, key);
    return key ?? undefined;
  };
}

/**
 * The position of the first route secret whose public key verifies (`check` may throw: a malformed signature
 * simply does not verify), or why none does, naming the secrets that are no such key by position only.
 */
export function publicKeyMatch(
  secrets: readonly string[],
  keyOf: (secret: string) => KeyObject | undefined,
  check: (key: KeyObject) => boolean,
  keyKind: string,
): { index: number } | { index: -1; reason: string } {
  const index = matchingSecretIndex(secrets, (secret) => {
    const key = keyOf(secret);
    if (!key) return false;
    try {
      return check(key);
    } catch {
      return false;
    }
  });
  if (index >= 0) return { index };
  const unusable = secrets.map((secret, i) => (keyOf(secret) ? 0 : i + 1)).filter((position) => position > 0);
  const many = unusable.length > 1;
  const note = unusable.length
    ? ` (secret${many ? 's' : ''} ${unusable.map((p) => `#${p}`).join(', ')} of the route ${many ? 'are not' : 'is not'} ${keyKind})`
    : '';
  return { index: -1, reason: `the signature does not verify with the route's public keys${note}` };
}
