// The matrix source: the hs_token (Bearer header or legacy access_token) against each of a route's secrets, the
// txnId from the path, the event type of a transaction, and the requests it answers itself (ping, other paths).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceRequest } from '@hookwise/core';
import { matrixSource } from '../../src';

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', name));
const BASE = 'https://hooks.example.com/webhooks/matrix';
const request = (path: string, headers: Record<string, string> = {}, method = 'PUT'): SourceRequest => ({
  headers,
  rawBody: fixture('transaction.json'),
  url: `${BASE}${path}`,
  receivedAt: Date.now(),
  method,
});
const payloadOf = (name: string) => JSON.parse(fixture(name).toString('utf8')) as Record<string, unknown>;

describe('matrix source', () => {
  const secrets = ['hs-token-new-0123456789abcdef', 'hs-token-old-0123456789abcdef'];
  const source = matrixSource.create();
  const txn = '/_matrix/app/v1/transactions/35';

  it('accepts the hs_token as a Bearer header or as the legacy access_token parameter, for either secret', () => {
    expect(source.verify(request(txn, { authorization: `Bearer ${secrets[0]}` }), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(request(`${txn}?access_token=${secrets[1]}`), secrets)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses another token, and tells a request without any apart', () => {
    expect(source.verify(request(txn, { authorization: 'Bearer not-the-hs-token' }), secrets)).toMatchObject({ ok: false });
    expect(source.verify(request(txn, { authorization: `Basic ${secrets[0]}` }), secrets)).toMatchObject({ ok: false, missing: true });
    expect(source.verify(request(txn), secrets)).toMatchObject({ ok: false, missing: true });
  });

  it('reads the txnId of the current and the legacy path as the delivery id', () => {
    expect(source.deliveryId?.(request(txn), {})).toBe('35');
    expect(source.deliveryId?.(request('/transactions/m1700000000.7'), {})).toBe('m1700000000.7');
    expect(source.deliveryId?.(request('/_matrix/app/v1/users/%40a%3Aexample.org'), {})).toBeUndefined();
  });

  it("names a transaction by its events' shared type, else 'transaction'", () => {
    expect(source.eventType?.(request(txn), payloadOf('reply-transaction.json'))).toBe('m.room.message');
    expect(source.eventType?.(request(txn), payloadOf('transaction.json'))).toBe('transaction');
    expect(source.eventType?.(request(txn), { events: [] })).toBe('transaction');
  });

  it('answers ping {} and any path that is no transaction M_UNRECOGNIZED; a transaction is queued', () => {
    expect(source.handshake?.(request('/_matrix/app/v1/ping', {}, 'POST'), {}, secrets[0])).toEqual({ status: 200, body: {} });
    expect(source.handshake?.(request('', {}, 'POST'), {}, secrets[0])).toMatchObject({ status: 404, body: { errcode: 'M_UNRECOGNIZED' } });
    expect(source.handshake?.(request(txn), {}, secrets[0])).toBeUndefined();
    expect(source.eventAnswer).toEqual({ status: 200, body: {} });
    expect(source.requests).toEqual({ methods: ['PUT'], subPaths: true });
  });
});
