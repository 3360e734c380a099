// defineSource: the contribution around a sender's style, and header names read as the event type and delivery id.
import type { SourceRequest } from '@hookwise/core';
import { defineSource } from '../../src/source';

const request = (headers: Record<string, string>): SourceRequest => ({
  headers,
  rawBody: Buffer.from('{}'),
  url: 'http://localhost/webhooks/r',
  receivedAt: 0,
});

describe('defineSource', () => {
  const acme = defineSource<{ strict?: boolean }>({
    id: 'acme',
    aliases: ['acme_old'],
    description: 'Acme: X-Acme-Token',
    options: { strict: { type: 'boolean', default: false } },
    style: (options) => ({
      headers: ['x-acme-token'],
      verify: (req, secrets) =>
        secrets.includes(String(req.headers['x-acme-token'])) ? { ok: true, secretIndex: 0 } : { ok: false, reason: options.strict ? 'strict' : 'lax' },
      eventType: ['x-acme-event', 'x-acme-old-event'],
      deliveryId: 'x-acme-delivery',
    }),
  });

  it('makes the source contribution: kind, id, aliases, description and a schema allowing only its options', () => {
    expect(acme).toMatchObject({ kind: 'source', id: 'acme', aliases: ['acme_old'], description: 'Acme: X-Acme-Token' });
    expect(acme.optionsSchema).toEqual({ type: 'object', additionalProperties: false, properties: { strict: { type: 'boolean', default: false } } });
    expect(defineSource({ id: 'plain', description: 'd', style: () => ({ headers: [], verify: () => ({ ok: false, reason: 'x' }) }) })).not.toHaveProperty(
      'aliases',
    );
  });

  it('passes the options to the style, and works without options', () => {
    expect(acme.create({ strict: true }).verify(request({}), ['s'])).toEqual({ ok: false, reason: 'strict' });
    expect(acme.create().verify(request({}), ['s'])).toEqual({ ok: false, reason: 'lax' });
  });

  it('reads a header name, or the first present of several, as the event type and delivery id', () => {
    const source = acme.create();
    expect(source.eventType?.(request({ 'x-acme-old-event': 'old', 'x-acme-delivery': 'd-1' }), {})).toBe('old');
    expect(source.eventType?.(request({ 'x-acme-event': 'new', 'x-acme-old-event': 'old' }), {})).toBe('new');
    expect(source.deliveryId?.(request({ 'x-acme-delivery': 'd-1' }), {})).toBe('d-1');
    expect(source.deliveryId?.(request({}), {})).toBeUndefined();
  });

  it('keeps a function as it is, and leaves out what the style does not say (the gateway falls back then)', () => {
    const source = defineSource({
      id: 'fn',
      description: 'd',
      style: () => ({ headers: ['x'], verify: () => ({ ok: true, secretIndex: 0 }), eventType: (_req, payload) => String(payload.kind) }),
    }).create();
    expect(source.eventType?.(request({}), { kind: 'push' })).toBe('push');
    expect('deliveryId' in source).toBe(false);
  });
});
