// Unit tests of the PagerDuty source: signatures made the way PagerDuty's "Verifying Signatures" page describes
// (v1=<hex HMAC-SHA256 of the body>, comma-separated, one per signing secret), event type and delivery id from the
// v3 payload and headers, the test ping, and hostile header values.
import { createHmac } from 'node:crypto';
import type { HeaderMap, SourceRequest } from '@hookwise/core';
import plugin, { pagerDutySource } from '../../src';

// The incident.priority_updated example on the "Overview" page of PagerDuty's v3 webhook docs
// (developer.pagerduty.com; source: PagerDuty/developer-docs, docs/webhooks/01-Overview.md), trimmed to the
// incident's main fields.
const PRIORITY_UPDATED = `{
  "event": {
    "id": "5ac64822-4adc-4fda-ade0-410becf0de4f",
    "event_type": "incident.priority_updated",
    "resource_type": "incident",
    "occurred_at": "2020-10-02T18:45:22.169Z",
    "agent": { "html_url": "https://acme.pagerduty.com/users/PLH1HKV", "id": "PLH1HKV", "self": "https://api.pagerduty.com/users/PLH1HKV", "summary": "Tenex Engineer", "type": "user_reference" },
    "client": { "name": "PagerDuty" },
    "data": {
      "id": "PGR0VU2",
      "type": "incident",
      "self": "https://api.pagerduty.com/incidents/PGR0VU2",
      "html_url": "https://acme.pagerduty.com/incidents/PGR0VU2",
      "number": 2,
      "status": "triggered",
      "incident_key": "d3640fbd41094207a1c11e58e46b1662",
      "created_at": "2020-04-09T15:16:27Z",
      "title": "A little bump in the road",
      "service": { "html_url": "https://acme.pagerduty.com/services/PF9KMXH", "id": "PF9KMXH", "self": "https://api.pagerduty.com/services/PF9KMXH", "summary": "API Service", "type": "service_reference" },
      "priority": { "html_url": "https://acme.pagerduty.com/account/incident_priorities", "id": "PSO75BM", "self": "https://api.pagerduty.com/priorities/PSO75BM", "summary": "P1", "type": "priority_reference" },
      "urgency": "high",
      "resolve_reason": null
    }
  }
}`;
// What "Send Test Event" posts (event type pagey.ping).
const PING =
  '{"event":{"id":"01FKZOXA868SHYEE4DVNWB5P9W","event_type":"pagey.ping","resource_type":"pagey","occurred_at":"2025-04-07T03:00:55.532Z","agent":{"id":"PVE0ZR9","type":"user_reference"},"client":null,"data":{"message":"Hello from your friend Pagey!","type":"ping"}}}';
const body = Buffer.from(PRIORITY_UPDATED);
const SECRETS = ['pd-subscription-secret-new', 'pd-subscription-secret-old'] as const;
const WEBHOOK_ID = '01CHBZTUXMUHTPKS8ZAJZYNFMX';

const v1 = (secret: string, data: Buffer = body) => `v1=${createHmac('sha256', secret).update(data).digest('hex')}`;

function request(headers: HeaderMap, rawBody: Buffer = body): SourceRequest {
  return { headers, rawBody, url: 'https://hooks.example.com/webhooks/pagerduty', receivedAt: Date.now() };
}

function pagerDutyHeaders(signature: string | string[] | undefined): HeaderMap {
  return {
    'content-type': 'application/json',
    'user-agent': 'PagerDuty-Webhook/V3.0',
    'x-webhook-id': WEBHOOK_ID,
    'x-webhook-subscription': 'PY1OFLZ',
    'x-pagerduty-signature': signature,
  };
}

const source = pagerDutySource.create();

describe('pagerduty source: verification', () => {
  it('is contributed as source pagerduty and marks its style by X-PagerDuty-Signature', () => {
    expect(plugin.contributes.map((c) => `${c.kind}:${c.id}`)).toEqual(['source:pagerduty']);
    expect(source.headers[0]).toBe('x-pagerduty-signature');
  });

  it('accepts v1=<hex HMAC-SHA256 of the exact body> with the first secret', () => {
    expect(source.verify(request(pagerDutyHeaders(v1(SECRETS[0]))), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
  });

  it("names the route's second secret when that is the one that signed", () => {
    expect(source.verify(request(pagerDutyHeaders(v1(SECRETS[1]))), SECRETS)).toEqual({ ok: true, secretIndex: 1 });
  });

  it("accepts any of several signatures in one header (PagerDuty's own rotation), with or without spaces", () => {
    const rotating = `${v1('pd-secret-being-retired')},${v1(SECRETS[0])}`;
    expect(source.verify(request(pagerDutyHeaders(rotating)), [SECRETS[0]])).toEqual({ ok: true, secretIndex: 0 });
    const spaced = `${v1(SECRETS[1])}, ${v1('pd-secret-being-retired')}`;
    expect(source.verify(request(pagerDutyHeaders(spaced)), SECRETS)).toEqual({ ok: true, secretIndex: 1 });
    // Both signatures known to the route: the first route secret that matches is named.
    expect(source.verify(request(pagerDutyHeaders(`${v1(SECRETS[1])},${v1(SECRETS[0])}`)), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('skips signature versions other than v1', () => {
    const digest = v1(SECRETS[0]).slice(3);
    expect(source.verify(request(pagerDutyHeaders(`v2=${digest}`)), SECRETS).ok).toBe(false);
    expect(source.verify(request(pagerDutyHeaders(`v2=${digest},v1=${digest}`)), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('refuses signatures made with other secrets, without naming any secret', () => {
    const verdict = source.verify(request(pagerDutyHeaders(`${v1('guess-1')},${v1('guess-2')}`)), SECRETS);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.missing).toBeUndefined();
    for (const secret of [...SECRETS, 'guess-1', 'guess-2']) expect(verdict.reason).not.toContain(secret);
  });

  it('refuses a tampered body', () => {
    const tampered = Buffer.from(PRIORITY_UPDATED.replace('"P1"', '"P5"'));
    expect(source.verify(request(pagerDutyHeaders(v1(SECRETS[0])), tampered), SECRETS).ok).toBe(false);
  });

  it('says missing without X-PagerDuty-Signature', () => {
    expect(source.verify(request(pagerDutyHeaders(undefined)), SECRETS)).toEqual({ ok: false, reason: 'missing x-pagerduty-signature header', missing: true });
    expect(source.verify(request(pagerDutyHeaders('')), SECRETS)).toMatchObject({ ok: false, missing: true });
  });

  it.each<[string, string | string[]]>([
    ['an array holding an empty value', ['']],
    ['commas only', ',,,'],
    ['v1= with nothing after it', 'v1='],
    ['a bare digest without v1=', v1(SECRETS[0]).slice(3)],
    ['a short digest', 'v1=abcdef'],
    ['non-hex digits', `v1=${'k'.repeat(64)}`],
    ['non-ASCII characters', `v1=${'ß'.repeat(64)}`],
    ['a 64 KiB value', `v1=${'0'.repeat(64 * 1024)}`],
    ['thousands of entries', Array.from({ length: 5000 }, () => 'v1=00').join(',')],
  ])('refuses %s cleanly, without throwing', (_what, value) => {
    let verdict: ReturnType<typeof source.verify> | undefined;
    expect(() => {
      verdict = source.verify(request(pagerDutyHeaders(value)), SECRETS);
    }).not.toThrow();
    expect(verdict?.ok).toBe(false);
  });
});

describe('pagerduty source: event type, delivery id, test ping', () => {
  const payload = JSON.parse(PRIORITY_UPDATED) as Record<string, unknown>;

  it("takes the event type from the payload's event.event_type", () => {
    expect(source.eventType?.(request(pagerDutyHeaders('x')), payload)).toBe('incident.priority_updated');
    expect(source.eventType?.(request({}), { event: { event_type: 'incident.triggered' } })).toBe('incident.triggered');
    expect(source.eventType?.(request({}), { event: 'incident.triggered' })).toBeUndefined();
    expect(source.eventType?.(request({}), {})).toBeUndefined();
  });

  it('takes the delivery id from X-Webhook-Id, the same on every delivery attempt; else from event.id', () => {
    expect(source.deliveryId?.(request(pagerDutyHeaders('x')), payload)).toBe(WEBHOOK_ID);
    expect(source.deliveryId?.(request({}), payload)).toBe('5ac64822-4adc-4fda-ade0-410becf0de4f');
    expect(source.deliveryId?.(request({}), {})).toBeUndefined();
  });

  it('answers the pagey.ping test event at once, and no other event', () => {
    const ping = JSON.parse(PING) as Record<string, unknown>;
    expect(source.handshake?.(request(pagerDutyHeaders(v1(SECRETS[0], Buffer.from(PING))), Buffer.from(PING)), ping, SECRETS[0])).toEqual({
      status: 200,
      body: { status: 'pong', event: 'pagey.ping' },
    });
    expect(source.handshake?.(request(pagerDutyHeaders('x')), payload, SECRETS[0])).toBeUndefined();
  });
});
