import { checkErrorCode, chunkText, type ErrorCodeRules, type HttpResponse } from '@hookwise/kit/platform';
import { measureText } from '../../src/platform/chunk';

function answer(json: unknown, status = 200, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: new Headers(headers), text: JSON.stringify(json), json };
}

const rules: ErrorCodeRules = {
  codeField: 'errcode',
  messageField: 'errmsg',
  kinds: { token_expired: [42001], rate_limited: [45009], auth: [40013], unavailable: [-1] },
  explanations: { 40013: 'check the app id' },
  retryAfterSeconds: (res, code) => (code === 45009 ? 60 : undefined),
};

describe('checkErrorCode', () => {
  it('accepts code 0 and answers without a code, and lets a non-2xx status decide when the code is 0', () => {
    expect(checkErrorCode(answer({ errcode: 0, errmsg: 'ok' }), rules)).toBeUndefined();
    expect(checkErrorCode(answer({ access_token: 'x' }), rules)).toBeUndefined();
    expect(checkErrorCode(answer({ errcode: 0 }, 503), rules)?.kind).toBe('unavailable');
  });

  it('classifies listed codes, with the platform words, the explanation and the wait hint', () => {
    expect(checkErrorCode(answer({ errcode: 42001, errmsg: 'access_token expired' }), rules)).toEqual({
      kind: 'token_expired',
      message: 'errcode 42001: access_token expired',
    });
    expect(checkErrorCode(answer({ errcode: 40013, errmsg: 'invalid appid' }), rules)).toEqual({
      kind: 'auth',
      message: 'errcode 40013: invalid appid. check the app id',
    });
    expect(checkErrorCode(answer({ errcode: 45009, errmsg: 'freq out of limit' }), rules)).toEqual({
      kind: 'rate_limited',
      message: 'errcode 45009: freq out of limit',
      retryAfterSeconds: 60,
    });
    expect(checkErrorCode(answer({ errcode: '-1', errmsg: 'system busy' }, 200, { 'retry-after': '3' }), rules)).toEqual({
      kind: 'unavailable',
      message: 'errcode -1: system busy',
      retryAfterSeconds: 3,
    });
  });

  it('treats an unlisted code as refused, unless its HTTP status says more', () => {
    expect(checkErrorCode(answer({ errcode: 40003, errmsg: 'invalid openid' }), rules)?.kind).toBe('rejected');
    expect(checkErrorCode(answer({ errcode: 99999 }, 401), rules)).toEqual({ kind: 'auth', message: 'errcode 99999 (HTTP 401)' });
  });
});

describe('chunkText with UTF-8 byte limits', () => {
  it('keeps every chunk within the byte limit and loses nothing', () => {
    const text = '你好世界。'.repeat(300) + ' 😀'.repeat(200);
    const chunks = chunkText(text, 2048, 'utf8');
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(measureText(c, 'utf8')).toBeLessThanOrEqual(2048);
    expect(chunks.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
  });

  it('does not split a multi-byte character when it must hard-cut', () => {
    const chunks = chunkText('😀'.repeat(30), 17, 'utf8');
    for (const c of chunks) {
      expect(Buffer.byteLength(c)).toBeLessThanOrEqual(17);
      expect(c).not.toContain('\ufffd');
      expect(c.length % 2).toBe(0);
    }
    expect(chunks.join('')).toBe('😀'.repeat(30));
  });

  it('counts the same as UTF-16 for ASCII text', () => {
    const text = 'word '.repeat(500);
    expect(chunkText(text, 300, 'utf8')).toEqual(chunkText(text, 300));
  });
});
