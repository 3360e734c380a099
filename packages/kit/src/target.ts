// Where a platform message goes: deliver_extra.chat_id, else the platform's home_channel (SPEC §2.4).
import { HookwiseError } from '@hookwise/core';

export interface ResolvedTarget {
  target: string;
  /** Where the target came from, for log lines. */
  source: 'chat_id' | 'home_channel';
}

export function resolveTarget(extra: Record<string, string> | undefined, homeChannel: string | undefined, platformId: string): ResolvedTarget {
  const chatId = extra?.chat_id?.trim();
  if (chatId) return { target: chatId, source: 'chat_id' };
  const home = homeChannel?.trim();
  if (home) return { target: home, source: 'home_channel' };
  throw new HookwiseError(
    'HW_E_DELIVERY_TARGET',
    `${platformId}: no target for this message: set deliver_extra.chat_id on the route or platforms.${platformId}.home_channel in config.yaml`,
    { retryable: false },
  );
}

/** The first non-empty value among `keys` in deliver_extra (for aliases such as message_thread_id / thread_id). */
export function extraValue(extra: Record<string, string> | undefined, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = extra?.[key]?.trim();
    if (value) return value;
  }
  return undefined;
}
