// The thorough scrub of text that leaves the gateway: every form SecretScrubber knows, and the same secret in
// any case, split by whitespace, reversed, or as hex or base32 of its bytes; short values only as written.
import { REDACTED, SecretScrubber, ThoroughScrubber, credentialValues } from '@hookwise/core';

const SECRET = 'sk-Thorough/Secret+9f8e7d6c';
const bytes = Buffer.from(SECRET);

function base32(buf: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of buf) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out + '='.repeat((8 - (out.length % 8)) % 8);
}

/** Every encoding the outbound exits are tested in (also by packages/gateway/test/integration/outbound-exits.test.ts). */
export const ENCODINGS: Record<string, (secret: string) => string> = {
  raw: (s) => s,
  url: (s) => encodeURIComponent(s),
  json: (s) => JSON.stringify(s).slice(1, -1),
  base64: (s) => Buffer.from(s).toString('base64'),
  base64url: (s) => Buffer.from(s).toString('base64url'),
  hex: (s) => Buffer.from(s).toString('hex'),
  HEX: (s) => Buffer.from(s).toString('hex').toUpperCase(),
  base32: (s) => base32(Buffer.from(s)),
  upper: (s) => s.toUpperCase(),
  lower: (s) => s.toLowerCase(),
  split: (s) => s.replace(/(.{4})/g, '$1 ').trim(),
  lines: (s) => s.replace(/(.{5})/g, '$1\n'),
  reversed: (s) => [...s].reverse().join(''),
};

describe('ThoroughScrubber', () => {
  it.each(Object.keys(ENCODINGS))('scrubs a secret written %s', (name) => {
    const scrubber = new ThoroughScrubber([SECRET]);
    const form = ENCODINGS[name](SECRET);
    const out = scrubber.scrub(`before ${form} after`);
    expect(out).toContain(REDACTED);
    expect(out).toMatch(/^before /);
    expect(out).toMatch(/ after$/);
    for (const chunk of form.split(/\s+/).filter((c) => c.length >= 4)) expect(out).not.toContain(chunk);
  });

  it('follows a live scrubber’s secrets as they are registered', () => {
    const live = new SecretScrubber();
    const scrubber = new ThoroughScrubber([], [live]);
    const hex = bytes.toString('hex');
    expect(scrubber.scrub(hex)).toBe(hex);
    live.add(SECRET);
    expect(scrubber.scrub(`x ${hex} y`)).toBe(`x ${REDACTED} y`);
  });

  it('keeps the text around a match as written, other whitespace included', () => {
    const scrubber = new ThoroughScrubber([SECRET]);
    expect(scrubber.scrub(`a  b\n${SECRET.slice(0, 6)}\n${SECRET.slice(6)}\tc`)).toBe(`a  b\n${REDACTED}\tc`);
  });

  it('gives short secrets only their exact forms (no case or whitespace matches by chance)', () => {
    const scrubber = new ThoroughScrubber(['abc']);
    expect(scrubber.scrub('abc ABC a b c')).toBe(`${REDACTED} ABC a b c`);
  });

  it('scales linearly: a megabyte of text with secrets in it', () => {
    const scrubber = new ThoroughScrubber(Array.from({ length: 20 }, (_, i) => `${SECRET}-${i}`));
    const text = 'lorem ipsum dolor sit amet '.repeat(40_000);
    const started = performance.now();
    scrubber.scrub(text);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('credentialValues', () => {
  it('takes credential-named variables of at least 8 characters and the names listed', () => {
    const env = { GH_TOKEN: 'ghp_abcdefgh', DB_PASSWORD: 'pw-12345678', SIGNING_KEY: 'key-12345678', AUTH: '1', HOME: '/home/x', MY_API: 'listed-value' };
    expect(credentialValues(env, ['MY_API']).sort()).toEqual(['ghp_abcdefgh', 'key-12345678', 'listed-value', 'pw-12345678']);
  });
});
