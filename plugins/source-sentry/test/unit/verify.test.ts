// Unit tests of the Sentry source: signatures made the way Sentry's integration platform makes them (hex
// HMAC-SHA256 of the body with the client secret), event type from resource + action, delivery ids, hostile headers.
import { createHash, createHmac } from 'node:crypto';
import type { HeaderMap, SourceRequest } from '@hookwise/core';
import plugin, { sentrySource, sentryEventType } from '../../src';

// The comment example on Sentry's "Comments" webhook page
// (https://docs.sentry.io/integrations/integration-platform/webhooks/comments/), serialised the way Sentry sends
// it: Python's json.dumps, keys in the order Sentry builds the body (action, installation, data, actor).
const COMMENT =
  '{"action": "created", "installation": {"uuid": "eac5a0ae-60ec-418f-9318-46dc5e7e52ec"}, "data": {"comment": "adding a comment", "project_slug": "sentry", "comment_id": 1234, "issue_id": 100, "timestamp": "2022-03-02T21:51:44.118160Z"}, "actor": {"type": "user", "id": 1, "name": "colleen"}}';
// The example on Sentry's "Installation" webhook page
// (https://docs.sentry.io/integrations/integration-platform/webhooks/installation/).
const INSTALLATION =
  '{"action": "created", "installation": {"uuid": "a8e5d37a-696c-4c54-adb5-b3f28d64c7de"}, "data": {"installation": {"status": "pending", "organization": {"slug": "test-org"}, "app": {"uuid": "2ebf071f-28df-4989-aca9-c37c763b278f", "slug": "webhooks-galore"}, "code": "f3c71b491e3949b6b033ae45312a4fcb", "uuid": "a8e5d37a-696c-4c54-adb5-b3f28d64c7de"}}, "actor": {"id": 1, "name": "Meredith Heller", "type": "user"}}';
const body = Buffer.from(COMMENT);
const SECRETS = ['sentry-client-secret-new', 'sentry-client-secret-old'] as const;
const REQUEST_ID = '0c5b3f6a2e1d4c9b8a7f6e5d4c3b2a19';

const hmac = (secret: string, data: Buffer) => createHmac('sha256', secret).update(data).digest('hex');

function request(headers: HeaderMap, rawBody: Buffer = body): SourceRequest {
  return { headers, rawBody, url: 'https://hooks.example.com/webhooks/sentry', receivedAt: Date.now() };
}

function sentryHeaders(signature: string | string[] | undefined, resource = 'comment'): HeaderMap {
  return {
    'content-type': 'application/json',
    'request-id': REQUEST_ID,
    'sentry-hook-resource': resource,
    'sentry-hook-timestamp': String(Math.floor(Date.now() / 1000)),
    'sentry-hook-signature': signature,
  };
}

const source = sentrySource.create();

describe('sentry source: verification', () => {
  it('is contributed as source sentry and marks its style by Sentry-Hook-Signature', () => {
    expect(plugin.contributes.map((c) => `${c.kind}:${c.id}`)).toEqual(['source:sentry']);
    expect(source.headers[0]).toBe('sentry-hook-signature');
  });

  it('accepts the hex HMAC-SHA256 of the exact body with the client secret', () => {
    expect(source.verify(request(sentryHeaders(hmac(SECRETS[0], body))), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
    const installation = Buffer.from(INSTALLATION);
    expect(source.verify(request(sentryHeaders(hmac(SECRETS[0], installation), 'installation'), installation), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('names the second secret after the client secret was rotated in Sentry (old one still listed)', () => {
    expect(source.verify(request(sentryHeaders(hmac(SECRETS[1], body))), SECRETS)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses a signature made with another secret, without naming any secret', () => {
    const verdict = source.verify(request(sentryHeaders(hmac('guess', body))), SECRETS);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.missing).toBeUndefined();
    for (const secret of [...SECRETS, 'guess']) expect(verdict.reason).not.toContain(secret);
  });

  it('refuses a tampered body, and a re-serialised one', () => {
    const signature = hmac(SECRETS[0], body);
    expect(source.verify(request(sentryHeaders(signature), Buffer.from(COMMENT.replace('adding a comment', 'rm -rf /'))), SECRETS).ok).toBe(false);
    expect(source.verify(request(sentryHeaders(signature), Buffer.from(JSON.stringify(JSON.parse(COMMENT)))), SECRETS).ok).toBe(false);
  });

  it('says missing without Sentry-Hook-Signature', () => {
    expect(source.verify(request(sentryHeaders(undefined)), SECRETS)).toEqual({ ok: false, reason: 'missing sentry-hook-signature header', missing: true });
    expect(source.verify(request(sentryHeaders('')), SECRETS)).toMatchObject({ ok: false, missing: true });
  });

  it('does not look at Sentry-Hook-Timestamp, which Sentry does not sign (an old one is no evidence of a replay)', () => {
    const headers = { ...sentryHeaders(hmac(SECRETS[0], body)), 'sentry-hook-timestamp': '1000000000' };
    expect(source.verify(request(headers), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
  });

  it.each<[string, string | string[]]>([
    ['an array holding an empty value', ['']],
    ['a sha256= prefix', `sha256=${hmac(SECRETS[0], body)}`],
    ['a short digest', 'abc123'],
    ['non-hex digits', 'q'.repeat(64)],
    ['non-ASCII characters', '署'.repeat(64)],
    ['a 64 KiB value', 'f'.repeat(64 * 1024)],
    ['two digests joined by a proxy', `${hmac(SECRETS[0], body)}, ${hmac(SECRETS[1], body)}`],
  ])('refuses %s cleanly, without throwing', (_what, value) => {
    let verdict: ReturnType<typeof source.verify> | undefined;
    expect(() => {
      verdict = source.verify(request(sentryHeaders(value)), SECRETS);
    }).not.toThrow();
    expect(verdict?.ok).toBe(false);
  });
});

describe('sentry source: event type and delivery id', () => {
  const payload = JSON.parse(COMMENT) as Record<string, unknown>;

  it('names the event <Sentry-Hook-Resource>.<action>, as Sentry itself names it', () => {
    expect(source.eventType?.(request(sentryHeaders('x')), payload)).toBe('comment.created');
    expect(source.eventType?.(request(sentryHeaders('x', 'installation')), JSON.parse(INSTALLATION) as Record<string, unknown>)).toBe('installation.created');
    expect(sentryEventType('issue', { action: 'resolved' })).toBe('issue.resolved');
    expect(sentryEventType('event_alert', { action: 'triggered' })).toBe('event_alert.triggered');
    expect(sentryEventType('metric_alert', { action: 'critical' })).toBe('metric_alert.critical');
  });

  it('falls back to the resource alone without an action, and to nothing without a resource', () => {
    expect(sentryEventType('issue', {})).toBe('issue');
    expect(sentryEventType('issue', { action: 42 })).toBe('issue');
    expect(source.eventType?.(request({}), payload)).toBeUndefined();
  });

  it('takes the delivery id from Request-ID by default', () => {
    expect(source.deliveryId?.(request(sentryHeaders('x')), payload)).toBe(REQUEST_ID);
    expect(source.deliveryId?.(request({}), payload)).toBeUndefined();
  });

  it('with delivery_id: body_sha256, gives a retry (new Request-ID, same bytes) the same id, and another body another', () => {
    const byBody = sentrySource.create({ delivery_id: 'body_sha256' });
    const first = byBody.deliveryId?.(request(sentryHeaders('x')), payload);
    const retry = byBody.deliveryId?.(request({ ...sentryHeaders('x'), 'request-id': 'ffffffffffffffffffffffffffffffff' }), payload);
    expect(first).toBe(`sha256:${createHash('sha256').update(body).digest('hex')}`);
    expect(retry).toBe(first);
    expect(byBody.deliveryId?.(request(sentryHeaders('x'), Buffer.from(INSTALLATION)), payload)).not.toBe(first);
  });
});
