// Unit tests of the mcp-events source: deliveries signed with the Standard Webhooks library (`standardwebhooks`)
// verify with the subscription's secret and nothing else; the upstream's verification is echoed without a secret.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { HeaderMap, SourceRequest } from '@hookwise/core';
import plugin, { mcpEventsSource, verificationChallenge } from '../../src';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const secret = newSecret();
const now = Math.floor(Date.now() / 1000);
const occurrence = JSON.stringify({ eventId: 'evt-1', name: 'deploys', timestamp: '2026-01-01T00:00:00Z', data: { env: 'prod' }, cursor: 'c1' });

function request(headers: HeaderMap, body = occurrence, receivedAt = now * 1000): SourceRequest {
  return { headers, rawBody: Buffer.from(body), url: 'https://hooks.example.com/webhooks/upstream', receivedAt };
}

function signed(key: string, body = occurrence, ts = now): HeaderMap {
  return {
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(ts),
    'webhook-signature': new Webhook(key).sign('msg_1', new Date(ts * 1000), body),
    'x-mcp-subscription-id': 'sub_1',
  };
}

const source = mcpEventsSource.create({ tolerance_seconds: 300 });

describe('mcp-events source', () => {
  it('is contributed as source mcp-events with its subscription options', () => {
    expect(plugin.contributes[0]).toMatchObject({ kind: 'source', id: 'mcp-events' });
    expect(Object.keys(mcpEventsSource.optionsSchema.properties)).toEqual(
      expect.arrayContaining(['server', 'event', 'arguments', 'token_env', 'ttl_seconds', 'callback_url', 'tolerance_seconds']),
    );
    expect(source.headers[0]).toBe('webhook-signature');
  });

  it("verifies a delivery with the subscription's secret, and reads the event's name, id and data", () => {
    const req = request(signed(secret));
    expect(source.verify(req, [secret])).toEqual({ ok: true, secretIndex: 0 });
    const payload = source.parse!(req)!;
    expect(payload).toEqual({ env: 'prod' });
    expect(source.eventType!(req, payload)).toBe('deploys');
    expect(source.deliveryId!(req, payload)).toBe('evt-1');
    expect(source.handshake!(req, payload, secret)).toBeUndefined();
  });

  it('refuses a forged, unsigned or stale delivery, and any delivery before the gateway holds a secret', () => {
    expect(source.verify(request(signed(newSecret())), [secret])).toMatchObject({ ok: false, reason: expect.stringMatching(/no v1 signature matches/) });
    expect(source.verify(request({}), [secret])).toMatchObject({ ok: false, missing: true });
    expect(source.verify(request(signed(secret, occurrence, now - 3600)), [secret])).toMatchObject({ ok: false });
    expect(source.verify(request(signed(secret)), [])).toMatchObject({ ok: false, reason: expect.stringMatching(/no subscription secret yet/) });
  });

  it('answers the verification challenge, and only a message that is exactly one', () => {
    const verification = request({}, JSON.stringify({ type: 'verification', challenge: 'abc123' }));
    expect(source.verify(verification, [])).toEqual({ ok: true, secretIndex: 0 });
    const payload = source.parse!(verification)!;
    expect(source.handshake!(verification, payload, '')).toEqual({ status: 200, body: { challenge: 'abc123' } });
    for (const body of [
      { type: 'verification', challenge: 'abc', data: { x: 1 } },
      { type: 'verification', challenge: 'x'.repeat(300) },
      { type: 'verification', challenge: 7 },
      { eventId: 'e', name: 'n', data: { type: 'verification', challenge: 'abc' } },
    ]) {
      expect(verificationChallenge(request({}, JSON.stringify(body)))).toBeUndefined();
    }
  });
});
