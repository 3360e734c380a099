// Jest contract tests for a Verifier: call describeVerifierContract() from a plugin's own test file.
/// <reference types="jest" />
// Uses jest's global describe/it/expect, so it only runs inside jest (or a runner with the same globals).
import type { HeaderMap, Verifier, VerifyResult } from '@hookwise/core';

export interface VerifierContractOptions {
  /** Headers a real sender would add for `body` signed with `secret` (any case; the kit lower-cases them). */
  sign(body: Buffer, secret: string): Record<string, string>;
  /** Secret used by the checks (default a fixed test secret). */
  secret?: string;
}

const DEFAULT_SECRET = 'contract-secret-6f1d2c';

function lowerCaseHeaders(headers: Record<string, string>): HeaderMap {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function expectFailure(result: VerifyResult, secret: string): void {
  expect(result).toEqual({ ok: false, reason: expect.any(String) });
  if (!result.ok) {
    expect(result.reason.trim()).not.toBe('');
    // A reason ends up in a log line; it must never carry the secret.
    expect(result.reason).not.toContain(secret);
  }
}

/** Header values an attacker can send: the verifier must answer {ok:false, reason} to each, never throw. */
function garbageValues(signed: string): Array<[string, string | string[] | undefined]> {
  return [
    ['an empty string', ''],
    ['whitespace', '   '],
    ['undefined', undefined],
    ['an empty array', []],
    ['an array of two values', [signed, signed]],
    ['non-ASCII text', 'sha256=ünïcødé-✓'],
    ['a NUL byte', 'sha256=\u0000'],
    ['a 64 KiB value', 'a'.repeat(65_536)],
    ['the signature with one character changed', signed.slice(0, -1) + (signed.endsWith('0') ? '1' : '0')],
    ['the signature cut short', signed.slice(0, Math.max(0, signed.length - 2))],
    ['the signature with a trailing character', `${signed}0`],
  ];
}

export function describeVerifierContract(name: string, factory: () => Verifier | Promise<Verifier>, options: VerifierContractOptions): void {
  const secret = options.secret ?? DEFAULT_SECRET;
  const body = Buffer.from(JSON.stringify({ event_type: 'push', ref: 'refs/heads/main', text: 'grüße ✓' }));
  let verifier: Verifier;
  const signed = () => lowerCaseHeaders(options.sign(body, secret));

  describe(`${name}: verifier contract`, () => {
    beforeEach(async () => {
      verifier = await factory();
    });

    it('declares at least one header, all lower-case', () => {
      expect(Array.isArray(verifier.headers)).toBe(true);
      expect(verifier.headers.length).toBeGreaterThan(0);
      for (const header of verifier.headers) {
        expect(typeof header).toBe('string');
        expect(header).toBe(header.toLowerCase());
        expect(header.trim()).toBe(header);
        expect(header).not.toBe('');
      }
    });

    it('reads a header it declares (sign() adds one of verifier.headers)', () => {
      const names = Object.keys(signed());
      expect(names.some((n) => verifier.headers.includes(n))).toBe(true);
    });

    it('accepts a correctly signed body, synchronously', () => {
      const result = verifier.verify({ headers: signed(), rawBody: body }, secret);
      expect(result).not.toBeInstanceOf(Promise);
      expect(result).toEqual({ ok: true });
    });

    it('rejects the same headers with another secret', () => {
      expectFailure(verifier.verify({ headers: signed(), rawBody: body }, `${secret}-other`), `${secret}-other`);
    });

    it('rejects a body changed after signing (verifies the raw bytes, not a re-serialisation)', () => {
      const headers = signed();
      const reformatted = Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')), null, 2));
      const tampered = Buffer.from(body.toString('utf8').replace('main', 'evil'));
      const tokenOnly = Object.values(headers).some((v) => v === secret);
      // A plain-token scheme (GitLab style) does not cover the body; nothing to check then.
      if (tokenOnly) return;
      expectFailure(verifier.verify({ headers, rawBody: tampered }, secret), secret);
      expectFailure(verifier.verify({ headers, rawBody: reformatted }, secret), secret);
    });

    it('answers {ok:false, reason} without throwing when its headers are missing', () => {
      expectFailure(verifier.verify({ headers: {}, rawBody: body }, secret), secret);
      expectFailure(verifier.verify({ headers: { 'content-type': 'application/json' }, rawBody: Buffer.alloc(0) }, secret), secret);
    });

    describe('garbage header values never throw and never pass', () => {
      const cases = garbageValues('0'.repeat(64));
      for (const [label] of cases) {
        it(`rejects ${label}`, () => {
          const headers = signed();
          const real = Object.keys(headers).find((n) => verifier.headers.includes(n)) ?? verifier.headers[0];
          const value = garbageValues(String(headers[real] ?? '')).find(([l]) => l === label)![1];
          let result: VerifyResult | undefined;
          expect(() => {
            result = verifier.verify({ headers: { ...headers, [real]: value }, rawBody: body }, secret);
          }).not.toThrow();
          // Two copies of a correct signature is ambiguous; passing it is allowed, throwing is not.
          if (label === 'an array of two values') return;
          expectFailure(result!, secret);
        });
      }
    });

    it('does not throw on an empty body or an empty secret', () => {
      expect(() => verifier.verify({ headers: signed(), rawBody: Buffer.alloc(0) }, secret)).not.toThrow();
      expect(() => verifier.verify({ headers: signed(), rawBody: body }, '')).not.toThrow();
    });
  });
}
