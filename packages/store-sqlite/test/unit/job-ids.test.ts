import { JobIdFormat, MAX_SEQ, seqInJobId } from '../../src/job-ids';

describe('SQLite job ids', () => {
  it('carry the creation time in ms and the seq, UUID-shaped (version 8)', () => {
    const now = Date.UTC(2026, 10, 23, 12, 0, 0);
    const id = new JobIdFormat().format(0x1234, now);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
    expect(id.endsWith('-000000001234')).toBe(true);
    expect(seqInJobId(id)).toBe(0x1234);
    expect(seqInJobId(new JobIdFormat().format(MAX_SEQ, now))).toBe(MAX_SEQ);
  });

  it('differ between two stores at the same time and seq', () => {
    const ids = new Set(Array.from({ length: 20 }, () => new JobIdFormat().format(7, 1_000)));
    expect(ids.size).toBeGreaterThan(1);
  });

  it('refuse a seq that does not fit, and read no seq from other ids', () => {
    const format = new JobIdFormat();
    expect(() => format.format(0, 1)).toThrow(RangeError);
    expect(() => format.format(MAX_SEQ + 1, 1)).toThrow(RangeError);
    expect(seqInJobId('6f1c2a4e-8b7d-4c3a-9e21-0a1b2c3d4e5f')).toBeUndefined(); // v4
    expect(seqInJobId('019ab3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b')).toBeUndefined(); // v7 (schema 3 and older)
    expect(seqInJobId('j1')).toBeUndefined();
  });
});
