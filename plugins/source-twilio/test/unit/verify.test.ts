// Unit tests of the Twilio source's signature check, signed with Twilio's own SDK (getExpectedTwilioSignature) and
// cross-checked with its validators (validateRequest, validateRequestWithBody).
import { getExpectedBodyHash, getExpectedTwilioSignature, validateRequest, validateRequestWithBody } from 'twilio/lib/webhooks/webhooks';
import type { SourceRequest } from '@hookwise/core';
import { twilioSource, urlCandidates } from '../../src';

// The worked example of https://www.twilio.com/docs/usage/webhooks/webhooks-security ("Validating signatures"):
// Auth Token 12345, a <Gather> POST to https://mycompany.com/myapp.php?foo=1&bar=2 with these parameters.
const DOC_TOKEN = '12345';
const DOC_URL = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const DOC_PARAMS = { CallSid: 'CA1234567890ABCDE', Caller: '+12349013030', Digits: '1234', From: '+12349013030', To: '+18005551212' };
const DOC_SIGNATURE = '0/KCTR6DLpKmkAf8muzZqo1nDgQ=';

const TOKEN = 'f3d1c2b4a5968778695a4b3c2d1e0f00';
const OLD_TOKEN = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const source = twilioSource.create();

const form = (params: Record<string, string>) => Buffer.from(new URLSearchParams(params).toString());
const request = (url: string, rawBody: Buffer, headers: SourceRequest['headers']): SourceRequest => ({ url, rawBody, headers, receivedAt: Date.now() });
const signed = (token: string, url: string, params: Record<string, string>, rawBody = form(params), requestUrl = url) =>
  request(requestUrl, rawBody, { 'x-twilio-signature': getExpectedTwilioSignature(token, url, params), 'content-type': 'application/x-www-form-urlencoded' });

describe('twilio source: verify', () => {
  it("accepts the documentation's worked example (Auth Token 12345) with the documented signature", () => {
    const req = request(DOC_URL, form(DOC_PARAMS), { 'x-twilio-signature': DOC_SIGNATURE });
    expect(getExpectedTwilioSignature(DOC_TOKEN, DOC_URL, DOC_PARAMS)).toBe(DOC_SIGNATURE);
    expect(source.verify(req, [DOC_TOKEN])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('agrees with the SDK validator on a request it signed', () => {
    const req = signed(TOKEN, DOC_URL, DOC_PARAMS);
    expect(validateRequest(TOKEN, req.headers['x-twilio-signature'] as string, DOC_URL, DOC_PARAMS)).toBe(true);
    expect(source.verify(req, [TOKEN])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('reports which token of a rotation matched', () => {
    expect(source.verify(signed(OLD_TOKEN, DOC_URL, DOC_PARAMS), [TOKEN, OLD_TOKEN])).toEqual({ ok: true, secretIndex: 1 });
    expect(source.verify(signed(TOKEN, DOC_URL, DOC_PARAMS), [TOKEN, OLD_TOKEN])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('refuses another Auth Token', () => {
    const verdict = source.verify(signed('another-auth-token-000000000000', DOC_URL, DOC_PARAMS), [TOKEN, OLD_TOKEN]);
    expect(verdict.ok).toBe(false);
    expect(verdict).not.toHaveProperty('missing');
  });

  it('refuses a changed, added or removed parameter, and another URL', () => {
    const good = signed(TOKEN, DOC_URL, DOC_PARAMS);
    const withBody = (rawBody: Buffer) => ({ ...good, rawBody });
    expect(source.verify(withBody(form({ ...DOC_PARAMS, Digits: '1235' })), [TOKEN]).ok).toBe(false);
    expect(source.verify(withBody(form({ ...DOC_PARAMS, Extra: 'x' })), [TOKEN]).ok).toBe(false);
    const { Digits: _dropped, ...fewer } = DOC_PARAMS;
    expect(source.verify(withBody(form(fewer)), [TOKEN]).ok).toBe(false);
    expect(source.verify({ ...good, url: 'https://mycompany.com/myapp.php?foo=1&bar=3' }, [TOKEN]).ok).toBe(false);
    expect(source.verify({ ...good, url: 'https://evil.example/myapp.php?foo=1&bar=2' }, [TOKEN]).ok).toBe(false);
  });

  it('signs the fields, not their order or encoding: a reordered form still verifies, as with the SDK', () => {
    const reordered = Buffer.from('To=%2B18005551212&Digits=1234&From=%2B12349013030&Caller=%2B12349013030&CallSid=CA1234567890ABCDE');
    const req = { ...signed(TOKEN, DOC_URL, DOC_PARAMS), rawBody: reordered };
    expect(source.verify(req, [TOKEN])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('signs a repeated parameter the way the SDK does (each distinct value, sorted)', () => {
    const url = 'https://hooks.example.com/webhooks/sms';
    const rawBody = Buffer.from('MediaUrl=b&MediaUrl=a&MediaUrl=b&Body=hi');
    const signature = getExpectedTwilioSignature(TOKEN, url, { MediaUrl: ['b', 'a', 'b'], Body: 'hi' } as unknown as Record<string, string>);
    expect(source.verify(request(url, rawBody, { 'x-twilio-signature': signature }), [TOKEN])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('accepts the URL signed with or without the standard port, as Twilio validators do', () => {
    const bare = 'https://hooks.example.com/webhooks/sms?x=1';
    const ported = 'https://hooks.example.com:443/webhooks/sms?x=1';
    expect(source.verify(signed(TOKEN, ported, DOC_PARAMS, undefined, bare), [TOKEN])).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(signed(TOKEN, bare, DOC_PARAMS, undefined, ported), [TOKEN])).toEqual({ ok: true, secretIndex: 0 });
    expect(urlCandidates(bare)).toEqual(expect.arrayContaining([bare, ported]));
  });

  it('accepts a query string signed in the legacy encoding', () => {
    // WHATWG URL leaves [ ] | in a query as they are; Node's querystring (the older encoding) escapes them.
    const received = 'https://hooks.example.com/webhooks/sms?list=[a]|b';
    const legacy = 'https://hooks.example.com/webhooks/sms?list=%5Ba%5D%7Cb';
    expect(source.verify(signed(TOKEN, legacy, DOC_PARAMS, undefined, received), [TOKEN])).toEqual({ ok: true, secretIndex: 0 });
  });

  describe('JSON bodies (bodySHA256 in the URL)', () => {
    const body = Buffer.from('{"ConversationSid":"CH00000000000000000000000000000000","EventType":"onMessageAdded","Body":"Hello"}');
    const url = `https://hooks.example.com/webhooks/conv?bodySHA256=${getExpectedBodyHash(body.toString())}`;
    const jsonRequest = (rawBody: Buffer, token = TOKEN) =>
      request(url, rawBody, { 'x-twilio-signature': getExpectedTwilioSignature(token, url, {}), 'content-type': 'application/json' });

    it('accepts the signed URL and the body it hashes, as validateRequestWithBody does', () => {
      const req = jsonRequest(body);
      expect(validateRequestWithBody(TOKEN, req.headers['x-twilio-signature'] as string, url, body.toString())).toBe(true);
      expect(source.verify(req, [OLD_TOKEN, TOKEN])).toEqual({ ok: true, secretIndex: 1 });
    });

    it('refuses a body that does not match bodySHA256, naming why', () => {
      const verdict = source.verify(jsonRequest(Buffer.from(body.toString().replace('Hello', 'Hullo'))), [TOKEN]);
      expect(verdict).toEqual({ ok: false, reason: expect.stringContaining('bodySHA256') });
    });

    it('refuses another token even when the body hash matches', () => {
      expect(source.verify(jsonRequest(body, OLD_TOKEN), [TOKEN]).ok).toBe(false);
    });

    it('never leaves a body unsigned: a URL-only signature does not cover a JSON body sent without bodySHA256', () => {
      const plainUrl = 'https://hooks.example.com/webhooks/conv';
      const req = request(plainUrl, body, { 'x-twilio-signature': getExpectedTwilioSignature(TOKEN, plainUrl, {}), 'content-type': 'application/json' });
      expect(source.verify(req, [TOKEN]).ok).toBe(false);
    });
  });

  it('answers missing: true when there is no X-Twilio-Signature (blank counts as none)', () => {
    for (const value of [undefined, '', '   ', ['']]) {
      const req = request(DOC_URL, form(DOC_PARAMS), value === undefined ? {} : { 'x-twilio-signature': value });
      expect(source.verify(req, [TOKEN])).toEqual({ ok: false, reason: 'missing x-twilio-signature header', missing: true });
    }
  });

  it.each([
    ['malformed base64', '!!!not-base64-at-all!!!!!!!='],
    ['a short value', 'abc='],
    ['a 64 KiB value', 'A'.repeat(64 * 1024)],
    ['non-ASCII characters', 'é'.repeat(27) + '='],
    ['a hex digest instead of base64', 'a'.repeat(40)],
    ['the right length but the wrong digest', 'A'.repeat(27) + '='],
  ])('refuses %s without throwing', (_what, value) => {
    const verdict = source.verify(request(DOC_URL, form(DOC_PARAMS), { 'x-twilio-signature': value }), [TOKEN]);
    expect(verdict.ok).toBe(false);
    expect(verdict).not.toHaveProperty('missing');
  });

  it('reads the first value of a repeated header, and copes with a URL that does not parse', () => {
    const good = getExpectedTwilioSignature(TOKEN, DOC_URL, DOC_PARAMS);
    expect(source.verify(request(DOC_URL, form(DOC_PARAMS), { 'x-twilio-signature': [good, 'junk'] }), [TOKEN]).ok).toBe(true);
    expect(() => source.verify(request('not a url', form(DOC_PARAMS), { 'x-twilio-signature': good }), [TOKEN])).not.toThrow();
    expect(source.verify(request('not a url', form(DOC_PARAMS), { 'x-twilio-signature': good }), [TOKEN]).ok).toBe(false);
  });

  it('keeps the Auth Token out of its reasons', () => {
    const verdict = source.verify(signed('another-auth-token-000000000000', DOC_URL, DOC_PARAMS), [TOKEN]);
    expect(verdict.ok || verdict.reason.includes(TOKEN)).toBe(false);
  });
});
