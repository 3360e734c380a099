// Secret rules (issue 20 items 3 and 9): length, ASCII, redaction whatever the length, and length-blind comparison.
import { Writable } from 'node:stream';
import { constantTimeEqual } from '@hookwise/kit/source';
import { MIN_SECRET_LENGTH, secretProblem, secretsProblems } from '../../src/routes/secret-policy';
import { Redactor, createLogger } from '../../src/observe/logger';

describe('secret policy', () => {
  it('refuses secrets under 16 characters and non-ASCII ones; INSECURE_NO_AUTH and PEM keys pass', () => {
    expect(MIN_SECRET_LENGTH).toBe(16);
    expect(secretProblem('ab')).toMatch(/^is 2 character\(s\) long; secrets must have at least 16/);
    expect(secretProblem('x'.repeat(15))).toBeDefined();
    expect(secretProblem('x'.repeat(16))).toBeUndefined();
    expect(secretProblem('INSECURE_NO_AUTH')).toBeUndefined();
    expect(secretProblem('geheimnis-schlüssel-0123')).toMatch(/outside ASCII/);
    expect(secretProblem('emoji-secret-🔑-0123456789')).toMatch(/outside ASCII/);
    expect(secretProblem('with-a-bell\u0007-0123456789')).toMatch(/control characters/);
    expect(secretProblem('-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n')).toBeUndefined();
  });

  it('names the key of each refused secret, by position in a list', () => {
    expect(secretsProblems("route 'ci'", ['short'])).toEqual([expect.stringMatching(/^route 'ci' secret is 5 character/)]);
    expect(secretsProblems("route 'ci'", ['a-long-enough-secret-0', 'old'])).toEqual([expect.stringMatching(/^route 'ci' secrets\[1\] is 3 character/)]);
    expect(secretsProblems('platforms.webhook.extra', [undefined])).toEqual([]);
  });

  it('redacts every registered secret from log lines whatever its length', () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _e, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const redactor = new Redactor();
    for (const secret of ['ab', 'xyz', 'q']) redactor.add(secret);
    createLogger({ stream, format: 'json', redactor }).warn('token=ab key=xyz pin=q');
    expect(JSON.parse(lines[0]).message).toBe('token=[REDACTED] key=[REDACTED] pin=[REDACTED]');
    expect(redactor.has('ab')).toBe(true);
    expect(redactor.has('abc')).toBe(false);
  });

  it('compares plain tokens over digests of both sides, so unequal lengths neither throw nor return early', () => {
    // crypto.timingSafeEqual throws on buffers of different lengths: reaching `false` here means both sides were
    // hashed to 32 bytes first, which is what keeps the expected length out of the time taken.
    for (const [a, b] of [
      ['a'.repeat(16), 'a'.repeat(17)],
      ['', 'x'],
      ['ä', 'a'],
      ['secret-0123456789', 'secret-0123456789 '],
    ]) {
      expect(() => constantTimeEqual(a, b)).not.toThrow();
      expect(constantTimeEqual(a, b)).toBe(false);
    }
    expect(constantTimeEqual('same-secret-0123456789', 'same-secret-0123456789')).toBe(true);
  });
});
