// The opaque cursor of MCP Events polls and streams: a position in the store's record of accepted events, the
// job's receipt time and id (in that order), so it survives restarts on a durable store and means the same on
// every gateway sharing the store. Clients must not read it; the tests and this module do.

export interface EventPosition {
  /** Epoch ms the event was received (Job.receivedAt). */
  t: number;
  /** The job id; '' stands before every job received at `t`. */
  id: string;
}

const PREFIX = 'hw1.';

export function encodeCursor(position: EventPosition): string {
  return PREFIX + Buffer.from(JSON.stringify([position.t, position.id]), 'utf8').toString('base64url');
}

/** The position a cursor names; undefined when it is not one of ours. */
export function decodeCursor(cursor: string): EventPosition | undefined {
  if (!cursor.startsWith(PREFIX) || cursor.length > 200) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor.slice(PREFIX.length), 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [t, id] = value as [unknown, unknown];
    if (typeof t !== 'number' || !Number.isSafeInteger(t) || t < 0 || typeof id !== 'string' || id.length > 100) return undefined;
    return { t, id };
  } catch {
    return undefined;
  }
}

/** Negative when `a` comes before `b`. */
export function comparePositions(a: EventPosition, b: EventPosition): number {
  if (a.t !== b.t) return a.t - b.t;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
