// Public keys held in route secrets (Discord's Ed25519 key, SendGrid's P-256 key), imported once and cached:
// importing a key costs more than verifying with it, and route secrets rarely change.
import type { KeyObject } from 'node:crypto';

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
