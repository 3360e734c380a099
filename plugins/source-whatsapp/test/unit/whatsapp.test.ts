// The whatsapp source: X-Hub-Signature-256 against each of a route's secrets (the App Secret), the GET verification
// by the verify token, the event type and delivery id, on the example notifications of Meta's documentation.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceRequest } from '@hookwise/core';
import { whatsappSource } from '../../src';

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', name));
const BODY = fixture('text-message.json');
const sign = (secret: string, body = BODY) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const post = (headers: Record<string, string>, body = BODY): SourceRequest => ({
  headers,
  rawBody: body,
  url: 'https://h.example/webhooks/wa',
  receivedAt: Date.now(),
  method: 'POST',
});
const get = (query: string): SourceRequest => ({
  headers: {},
  rawBody: Buffer.alloc(0),
  url: `https://h.example/webhooks/wa?${query}`,
  receivedAt: Date.now(),
  method: 'GET',
});
const payloadOf = (name: string) => JSON.parse(fixture(name).toString('utf8')) as Record<string, unknown>;

describe('whatsapp source', () => {
  const secrets = ['app-secret-new-0123456789abcdef', 'app-secret-old-0123456789abcdef'];
  const source = whatsappSource.create({ verify_token: 'meatyhamhock' });

  it('accepts the body signed with either App Secret of the route, and refuses another or a changed body', () => {
    expect(source.verify(post({ 'x-hub-signature-256': sign(secrets[0]) }), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(post({ 'x-hub-signature-256': sign(secrets[1]) }), secrets)).toEqual({ ok: true, secretIndex: 1 });
    expect(source.verify(post({ 'x-hub-signature-256': sign('another-app-secret') }), secrets)).toMatchObject({ ok: false });
    expect(source.verify(post({ 'x-hub-signature-256': sign(secrets[0]) }, Buffer.concat([BODY, Buffer.from(' ')])), secrets)).toMatchObject({ ok: false });
    expect(source.verify(post({}), secrets)).toMatchObject({ ok: false, missing: true });
  });

  it("answers Meta's GET verification with the challenge when the verify token matches", () => {
    const req = get('hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=meatyhamhock');
    expect(source.verify(req, secrets)).toEqual({ ok: true, secretIndex: 0 });
    const payload = source.parse?.(req) ?? {};
    expect(source.handshake?.(req, payload, secrets[0])).toEqual({ status: 200, body: '1158201444', contentType: 'text/plain' });
  });

  it('refuses a GET with another verify token, without hub.mode=subscribe, or when no verify token is configured', () => {
    expect(source.verify(get('hub.mode=subscribe&hub.challenge=1&hub.verify_token=guess'), secrets)).toMatchObject({ ok: false });
    expect(source.verify(get('hub.challenge=1&hub.verify_token=meatyhamhock'), secrets)).toMatchObject({ ok: false, missing: true });
    const unset = whatsappSource.create({}).verify(get('hub.mode=subscribe&hub.challenge=1&hub.verify_token=meatyhamhock'), secrets);
    expect(unset).toMatchObject({ ok: false, reason: expect.stringContaining('source_options.verify_token') });
  });

  it('parses a POST as JSON and answers no handshake for it', () => {
    const req = post({});
    const payload = source.parse?.(req);
    expect(payload).toMatchObject({ object: 'whatsapp_business_account' });
    expect(source.handshake?.(req, payload ?? {}, secrets[0])).toBeUndefined();
    expect(source.parse?.(post({}, Buffer.from('[1]')))).toBeUndefined();
  });

  it.each([
    ['text-message.json', 'messages', 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA='],
    ['reply-message.json', 'messages', 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUJGRDhCQjg5QzdCRTU2QTNBMgA='],
    ['status-sent.json', 'statuses', 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3NjA5QTA2QjQ1NkI3RDAzQjEA:sent'],
  ])('reads the event type and delivery id of %s', (name, event, id) => {
    const payload = payloadOf(name);
    expect(source.eventType?.(post({}), payload)).toBe(event);
    expect(source.deliveryId?.(post({}), payload)).toBe(id);
  });
});
