// The mattermost source: the token field of the form and of the JSON body against each of a route's secrets, the
// payload without the token, and the delivery id, on the outgoing-webhook example of Mattermost's documentation.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceRequest } from '@hookwise/core';
import { mattermostSource } from '../../src';

const TOKEN = 'zmigewsanbbsdf59xnmduzypjc'; // the example's token
const FORM = readFileSync(join(__dirname, '..', 'fixtures', 'outgoing.form'));
const JSON_BODY = readFileSync(join(__dirname, '..', 'fixtures', 'outgoing.json'));
const request = (body: Buffer, contentType: string): SourceRequest => ({
  headers: { 'content-type': contentType },
  rawBody: body,
  url: 'http://localhost/webhooks/mm',
  receivedAt: Date.now(),
});
const form = request(FORM, 'application/x-www-form-urlencoded');
const json = request(JSON_BODY, 'application/json');

describe('mattermost source', () => {
  const source = mattermostSource.create();

  it.each([
    ['form', form],
    ['JSON', json],
  ])('accepts the %s body whose token is one of the route secrets, saying which', (_kind, req) => {
    expect(source.verify(req, [TOKEN, 'old-token-0123456789'])).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(req, ['new-token-0123456789', TOKEN])).toEqual({ ok: true, secretIndex: 1 });
    expect(source.verify(req, ['another-token-0123456789'])).toMatchObject({ ok: false });
  });

  it('tells a body without a token apart, and never matches an empty secret', () => {
    expect(source.verify(request(Buffer.from('text=hi'), 'application/x-www-form-urlencoded'), [TOKEN])).toMatchObject({ ok: false, missing: true });
    expect(source.verify(request(Buffer.from('token=&text=hi'), 'application/x-www-form-urlencoded'), [''])).toMatchObject({ ok: false, missing: true });
    expect(source.verify(request(Buffer.from('not json'), 'application/json'), [TOKEN])).toMatchObject({ ok: false, missing: true });
  });

  it('gives the payload without the token, the delivery id post_id and the event type outgoing_webhook', () => {
    for (const req of [form, json]) {
      const payload = source.parse?.(req) ?? {};
      expect(payload).not.toHaveProperty('token');
      expect(payload).toMatchObject({ channel_name: 'town-square', text: 'some text here', user_name: 'somename', trigger_word: 'some' });
      expect(source.deliveryId?.(req, payload)).toBe('axdygg1957njfe5pu38saikdho');
      expect(source.eventType?.(req, payload)).toBe('outgoing_webhook');
    }
    expect(JSON.stringify(source.parse?.(form))).not.toContain(TOKEN);
  });
});
