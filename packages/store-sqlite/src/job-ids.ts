// SQLite job ids: UUID-shaped (version 8, a custom layout) with the creation time in ms in the first 48 bits and
// the job row's seq in the last 48, so a job is found through the table's own key and its id needs no index.
import { randomBytes } from 'node:crypto';

const SEQ_IN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-([0-9a-f]{12})$/;

/** The largest seq an id can carry (48 bits). */
export const MAX_SEQ = 2 ** 48 - 1;

/** Makes the ids of one open store. */
export class JobIdFormat {
  /**
   * 24 random bits per open store, around the version and variant digits: two files (or two gateways on one
   * file at the same millisecond) never make the same id, and an id never names a row it was not made for,
   * since the time and the seq come together (and since schema 5 a seq is never reused: the newest row stays).
   */
  private readonly middle: string;

  constructor() {
    const bytes = randomBytes(3);
    const hex = bytes.toString('hex');
    this.middle = `8${hex.slice(0, 3)}-${(8 + (bytes[2] & 3)).toString(16)}${hex.slice(3, 6)}`;
  }

  /** The id's first 23 characters for the last `now` seen: the jobs of one grouped commit share their millisecond. */
  private prefix = { at: NaN, text: '' };

  format(seq: number, now: number): string {
    if (!Number.isSafeInteger(seq) || seq < 1 || seq > MAX_SEQ) throw new RangeError(`job seq ${seq} does not fit in a job id`);
    if (this.prefix.at !== now) {
      const time = now.toString(16).padStart(12, '0').slice(-12);
      this.prefix = { at: now, text: `${time.slice(0, 8)}-${time.slice(8, 12)}-${this.middle}-` };
    }
    return this.prefix.text + seq.toString(16).padStart(12, '0');
  }
}

/** The seq an id of this format carries; undefined for any other id (those of jobs written before schema 4). */
export function seqInJobId(id: string): number | undefined {
  const match = SEQ_IN_ID.exec(id);
  return match ? Number.parseInt(match[1], 16) : undefined;
}
