// Job ids: UUID-shaped (version 7 layout), their first 48 bits the creation time in ms.
import { randomUUID } from 'node:crypto';

/**
 * A new job id that sorts by creation time. Stores index job ids; random ids (UUID v4) land on a random page
 * of that index on every insert, time-ordered ones append at its end (in SQLite about 15 µs less per insert,
 * measured in docs/performance.md).
 */
export function newJobId(now = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  // randomUUID() is `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`: keep its random tail after the version digit.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`;
}
