// The telegram source: the secret token against each of a route's secrets, the update kind and update_id, on the
// example updates of Telegram's documentation (test/fixtures).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceRequest } from '@hookwise/core';
import { SECRET_TOKEN_PATTERN, telegramSource } from '../../src';

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', name));
const request = (headers: Record<string, string>, body = fixture('message.json')): SourceRequest => ({
  headers,
  rawBody: body,
  url: 'http://localhost/webhooks/telegram',
  receivedAt: Date.now(),
});
const payloadOf = (name: string) => JSON.parse(fixture(name).toString('utf8')) as Record<string, unknown>;

describe('telegram source', () => {
  const secrets = ['telegram_new-Secret_0123456789', 'telegram_old-Secret_0123456789'];
  const source = telegramSource.create();

  it('the test secrets are valid secret_token values', () => {
    for (const secret of secrets) expect(secret).toMatch(SECRET_TOKEN_PATTERN);
  });

  it('accepts the secret token equal to any of the route secrets and says which one matched', () => {
    expect(source.verify(request({ 'x-telegram-bot-api-secret-token': secrets[0] }), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(request({ 'x-telegram-bot-api-secret-token': secrets[1] }), secrets)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses another token, a prefix of the secret and an empty secret, and tells a missing header apart', () => {
    expect(source.verify(request({ 'x-telegram-bot-api-secret-token': 'another_token_0123456789' }), secrets)).toMatchObject({ ok: false });
    expect(source.verify(request({ 'x-telegram-bot-api-secret-token': secrets[0].slice(0, -1) }), secrets)).toMatchObject({ ok: false });
    expect(source.verify(request({ 'x-telegram-bot-api-secret-token': '' }), [''])).toMatchObject({ ok: false });
    expect(source.verify(request({}), secrets)).toMatchObject({ ok: false, missing: true });
  });

  it.each([
    ['message.json', 'message', '10000'],
    ['edited-message.json', 'edited_message', '10000'],
    ['reply.json', 'message', '10001'],
    ['callback-query.json', 'callback_query', '10002'],
  ])('reads the update kind and update_id of %s', (name, kind, id) => {
    const payload = payloadOf(name);
    expect(source.eventType?.(request({}), payload)).toBe(kind);
    expect(source.deliveryId?.(request({}), payload)).toBe(id);
  });

  it('has no event type or delivery id for a body that is no update', () => {
    expect(source.eventType?.(request({}), { update_id: 1 })).toBeUndefined();
    expect(source.deliveryId?.(request({}), { update_id: '1' })).toBeUndefined();
  });
});
