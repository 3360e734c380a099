// The two readings of MCP Events webhook subscriptions, as the server reads a subscribe (subscribe-params.ts) and as
// the gateway's `source: mcp-events` client writes one and reads the answer (upstream-protocol.ts).
import { randomBytes } from 'node:crypto';
import { canonicalJson, clientSecret, grantedTtlMs, keyUrl } from '../../src/mcp-events/subscribe-params';
import { isNotFound, readSubscribed, subscribeParams, upstreamError, upstreamSecret } from '../../src/mcp-events/upstream-protocol';

const whsec = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;

describe('subscribe params (server)', () => {
  it('takes a whsec_ secret of 24 to 64 bytes and nothing else, without repeating it', () => {
    expect(clientSecret({})).toBeUndefined();
    expect(clientSecret({ secret: null })).toBeUndefined();
    for (const bytes of [24, 32, 64]) expect(clientSecret({ secret: whsec(bytes) })).toMatch(/^whsec_/);
    const unpadded = whsec(32).replace(/=+$/, '');
    expect(clientSecret({ secret: unpadded })).toBe(unpadded);
    for (const bad of [
      whsec(23),
      whsec(65),
      'whsec_',
      `whsec_${'é'.repeat(40)}`,
      `whsec_${'A'.repeat(41)}`,
      `sec_${randomBytes(32).toString('base64')}`,
      42,
      {},
    ]) {
      expect(() => clientSecret({ secret: bad })).toThrow(/delivery\.secret: "whsec_" followed by the base64 of 24 to 64 random bytes$/);
    }
  });

  it('grants ttlMs before ttl, both within 60 s..24 h, and the default without either', () => {
    expect(grantedTtlMs({})).toBe(3_600_000);
    expect(grantedTtlMs({ ttl: 120 })).toBe(120_000);
    expect(grantedTtlMs({ ttlMs: 90_500 })).toBe(90_500);
    expect(grantedTtlMs({ ttlMs: 90_000, ttl: 7200 })).toBe(90_000);
    expect(grantedTtlMs({ ttlMs: 5 })).toBe(60_000);
    expect(grantedTtlMs({ ttlMs: 1e12 })).toBe(86_400_000);
    expect(grantedTtlMs({ ttl: null, ttlMs: null })).toBe(3_600_000);
    expect(() => grantedTtlMs({ ttlMs: 0 })).toThrow(/ttlMs/);
    expect(() => grantedTtlMs({ ttlMs: '1000' })).toThrow(/ttlMs/);
    expect(() => grantedTtlMs({ ttl: -1 })).toThrow(/ttl:/);
  });

  it('compares keys whatever the order of object keys; reads an unsubscribe key URL', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }));
    expect(canonicalJson(undefined)).toBe(canonicalJson(null));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
    expect(keyUrl({ url: 'https://Example.com/hook' })).toBe('https://example.com/hook');
    expect(keyUrl({ url: 'not a url' })).toBeUndefined();
    expect(keyUrl(undefined)).toBeUndefined();
  });
});

describe('upstream protocol (client)', () => {
  it('sends arguments always, its own secret, ttlMs and ttl', () => {
    const secret = whsec(32);
    expect(subscribeParams({ event: 'deploys', callback: 'https://gw/webhooks/r', secret, ttlSeconds: 60 })).toEqual({
      name: 'deploys',
      arguments: {},
      delivery: { mode: 'webhook', url: 'https://gw/webhooks/r', secret },
      ttlMs: 60_000,
      ttl: 60,
    });
  });

  it('keeps the secret it holds when either reading accepts it, else makes one', () => {
    const held = whsec(32);
    expect(upstreamSecret(held)).toBe(held);
    expect(upstreamSecret(undefined)).toMatch(/^whsec_/);
    const replaced = upstreamSecret('a-server-made-secret-of-another-format');
    expect(Buffer.from(replaced.slice(6), 'base64')).toHaveLength(32);
    const short = whsec(16);
    expect(upstreamSecret(short)).not.toBe(short);
  });

  it("reads SEP-3415's answer and the design sketch's", () => {
    const sep = readSubscribed(
      { resultType: 'complete', subscriptionId: 'sub_1', secret: 'whsec_server', expiresAt: '2030-01-01T00:00:00Z', ttl: 120 },
      'whsec_mine',
    );
    expect(sep).toEqual({ id: 'sub_1', idField: 'subscriptionId', secret: 'whsec_server', expiresAt: '2030-01-01T00:00:00Z', ttlMs: 120_000 });
    const sketch = readSubscribed({ id: 'sub_2', refreshBefore: '2030-01-01T00:00:00Z', cursor: null, truncated: false }, 'whsec_mine');
    expect(sketch).toEqual({ id: 'sub_2', idField: 'id', secret: 'whsec_mine', expiresAt: '2030-01-01T00:00:00Z', ttlMs: undefined });
    const both = readSubscribed({ subscriptionId: 'sub_3', id: 'sub_3', secret: 'whsec_mine', expiresAt: 'x', refreshBefore: 'x', ttl: 60 }, 'whsec_mine');
    expect(both.idField).toBe('subscriptionId');
    expect(() => readSubscribed({ refreshBefore: null }, 'whsec_mine')).toThrow(/without a subscriptionId or id/);
  });

  it('understands both error-code families', () => {
    expect(isNotFound({ code: -32023 })).toBe(true);
    expect(isNotFound({ code: -32011 })).toBe(true);
    expect(isNotFound({ code: -32602 })).toBe(false);
    expect(upstreamError({ code: -32015, data: { reason: 'challenge_failed' } })).toBe('callback verification failed (-32015, reason challenge_failed)');
    expect(upstreamError({ code: -32012 })).toBe('forbidden (authentication or authorization) (-32012)');
    expect(upstreamError({ code: -32024 })).toBe('forbidden (-32024)');
    expect(upstreamError({ code: -32014, data: { feature: 'deliveryMode' } })).toBe('unsupported (-32014, feature deliveryMode)');
    expect(upstreamError({ code: -32013 })).toBe('resource exhausted (-32013)');
    expect(upstreamError(new Error('boom'))).toBeUndefined();
  });
});
