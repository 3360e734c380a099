// Unit tests of the Bitbucket source: signatures made the way Bitbucket documents them (HMAC-SHA256 of the raw
// body, hex, `sha256=` prefix in X-Hub-Signature), event key and delivery id headers, and hostile header values.
import { createHmac } from 'node:crypto';
import type { HeaderMap, SourceRequest } from '@hookwise/core';
import plugin, { bitbucketSource } from '../../src';

// A repo:push delivery shaped like the example on Bitbucket Cloud's "Event payloads" page
// (https://support.atlassian.com/bitbucket-cloud/docs/event-payloads/), trimmed to the fields it documents.
const PUSH = `{"push":{"changes":[{"forced":false,"old":{"type":"branch","name":"main","target":{"type":"commit","hash":"4c1e2f18dfb5624cf7ddb1a354163feb6d86e1c8"}},"new":{"type":"branch","name":"main","target":{"type":"commit","hash":"a9f6b1e04fa3e9efc92a02b0b8bcb6c0e0cc2b1f","message":"Fix the flaky test\\n","author":{"type":"author","raw":"Jane Doe <jane@example.com>"}}},"created":false,"closed":false,"truncated":false,"commits":[{"type":"commit","hash":"a9f6b1e04fa3e9efc92a02b0b8bcb6c0e0cc2b1f","message":"Fix the flaky test\\n"}],"links":{"html":{"href":"https://bitbucket.org/acme/widgets/branches/compare/a9f6b1e04fa3e9efc92a02b0b8bcb6c0e0cc2b1f..4c1e2f18dfb5624cf7ddb1a354163feb6d86e1c8"}}}]},"actor":{"type":"user","display_name":"Jane Doe","uuid":"{6f3e5b3a-1b5b-4a36-9a5b-0a0f4c2b7e11}"},"repository":{"type":"repository","full_name":"acme/widgets","name":"widgets","uuid":"{0b8c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d}","is_private":true}}`;
const body = Buffer.from(PUSH);
const SECRETS = ['bb-new-secret-2026', 'bb-old-secret-2025'] as const;
const REQUEST_UUID = '2f1b0c7e-9d3a-4e5f-8a6b-1c2d3e4f5a6b';
const HOOK_UUID = '{a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d}';

const hmac = (secret: string, data: Buffer) => createHmac('sha256', secret).update(data).digest('hex');
const sign = (secret: string, data: Buffer = body) => `sha256=${hmac(secret, data)}`;

function request(headers: HeaderMap, rawBody: Buffer = body): SourceRequest {
  return { headers, rawBody, url: 'https://hooks.example.com/webhooks/bb', receivedAt: Date.now() };
}

function bitbucketHeaders(signature: string | string[] | undefined): HeaderMap {
  return {
    'content-type': 'application/json',
    'x-event-key': 'repo:push',
    'x-hook-uuid': HOOK_UUID,
    'x-request-uuid': REQUEST_UUID,
    'x-attempt-number': '1',
    'x-hub-signature': signature,
  };
}

const source = bitbucketSource.create();

describe('bitbucket source: verification', () => {
  it('is contributed as source bitbucket and marks its style by X-Hub-Signature', () => {
    expect(plugin.contributes.map((c) => `${c.kind}:${c.id}`)).toEqual(['source:bitbucket']);
    expect(source.headers[0]).toBe('x-hub-signature');
  });

  it('accepts the sha256= HMAC of the exact body with the first secret', () => {
    expect(source.verify(request(bitbucketHeaders(sign(SECRETS[0]))), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('names the second secret when the sender still signs with the old one (rotation)', () => {
    expect(source.verify(request(bitbucketHeaders(sign(SECRETS[1]))), SECRETS)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('accepts an upper-case hex digest', () => {
    const upper = `sha256=${hmac(SECRETS[0], body).toUpperCase()}`;
    expect(source.verify(request(bitbucketHeaders(upper)), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('reads the first value when the header arrives twice as an array', () => {
    expect(source.verify(request(bitbucketHeaders([sign(SECRETS[1]), sign('x')])), SECRETS)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses a signature made with a secret the route does not know, without naming any secret', () => {
    const verdict = source.verify(request(bitbucketHeaders(sign('attacker-guess'))), SECRETS);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.missing).toBeUndefined();
    for (const secret of [...SECRETS, 'attacker-guess']) expect(verdict.reason).not.toContain(secret);
  });

  it('refuses a tampered body', () => {
    const tampered = Buffer.from(PUSH.replace('Fix the flaky test', 'Delete production'));
    expect(source.verify(request(bitbucketHeaders(sign(SECRETS[0])), tampered), SECRETS).ok).toBe(false);
  });

  it('refuses a re-serialised body (the signature covers the exact bytes)', () => {
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(PUSH), null, 2));
    expect(source.verify(request(bitbucketHeaders(sign(SECRETS[0])), reserialised), SECRETS).ok).toBe(false);
  });

  it('says missing when there is no X-Hub-Signature (a webhook saved without a secret)', () => {
    expect(source.verify(request(bitbucketHeaders(undefined)), SECRETS)).toEqual({ ok: false, reason: 'missing x-hub-signature header', missing: true });
    expect(source.verify(request(bitbucketHeaders([])), SECRETS)).toMatchObject({ ok: false, missing: true });
  });

  it("refuses GitHub's style on a bitbucket route: X-Hub-Signature sha1= beside a valid X-Hub-Signature-256", () => {
    const github: HeaderMap = {
      'x-github-event': 'push',
      'x-hub-signature': `sha1=${createHmac('sha1', SECRETS[0]).update(body).digest('hex')}`,
      'x-hub-signature-256': sign(SECRETS[0]),
    };
    const verdict = source.verify(request(github), SECRETS);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.missing).toBeUndefined();
    // Without X-Hub-Signature at all, GitHub's SHA-256 header alone is not this style.
    expect(source.verify(request({ 'x-hub-signature-256': sign(SECRETS[0]) }), SECRETS)).toMatchObject({ ok: false, missing: true });
  });

  it.each<[string, string | string[]]>([
    ['an empty value', ''],
    ['an array holding an empty value', ['']],
    ['the prefix alone', 'sha256='],
    ['no prefix', hmac(SECRETS[0], body)],
    ['a short digest', 'sha256=abcdef'],
    ['non-hex digits', `sha256=${'z'.repeat(64)}`],
    ['non-ASCII characters', `sha256=${'é'.repeat(64)}`],
    ['a 64 KiB value', `sha256=${'a'.repeat(64 * 1024)}`],
    ['two signatures joined by a proxy', `${sign(SECRETS[0])}, ${sign(SECRETS[1])}`],
  ])('refuses %s cleanly, without throwing', (_what, value) => {
    let verdict: ReturnType<typeof source.verify> | undefined;
    expect(() => {
      verdict = source.verify(request(bitbucketHeaders(value)), SECRETS);
    }).not.toThrow();
    expect(verdict?.ok).toBe(false);
  });

  it('refuses everything when the route has no secrets', () => {
    expect(source.verify(request(bitbucketHeaders(sign(SECRETS[0]))), []).ok).toBe(false);
  });
});

describe('bitbucket source: event type, delivery id, ping', () => {
  const payload = JSON.parse(PUSH) as Record<string, unknown>;

  it('takes the event type from X-Event-Key, as Bitbucket names it', () => {
    expect(source.eventType?.(request(bitbucketHeaders(sign(SECRETS[0]))), payload)).toBe('repo:push');
    const pr = { ...bitbucketHeaders(sign(SECRETS[0])), 'x-event-key': 'pullrequest:created' };
    expect(source.eventType?.(request(pr), payload)).toBe('pullrequest:created');
  });

  it('takes the delivery id from X-Request-UUID, never from X-Hook-UUID (the same for every delivery of the hook)', () => {
    expect(source.deliveryId?.(request(bitbucketHeaders(sign(SECRETS[0]))), payload)).toBe(REQUEST_UUID);
    const noRequestUuid = { ...bitbucketHeaders(sign(SECRETS[0])), 'x-request-uuid': undefined };
    expect(source.deliveryId?.(request(noRequestUuid), payload)).toBeUndefined();
  });

  it("falls back to Data Center's X-Request-Id", () => {
    const dataCenter: HeaderMap = {
      'x-event-key': 'repo:refs_changed',
      'x-request-id': 'c0ffee00-1111-4222-8333-444455556666',
      'x-hub-signature': sign(SECRETS[0]),
    };
    expect(source.deliveryId?.(request(dataCenter), payload)).toBe('c0ffee00-1111-4222-8333-444455556666');
    expect(source.eventType?.(request(dataCenter), payload)).toBe('repo:refs_changed');
  });

  it("answers Data Center's diagnostics:ping at once, and nothing else", () => {
    const ping = { ...bitbucketHeaders(sign(SECRETS[0])), 'x-event-key': 'diagnostics:ping' };
    expect(source.handshake?.(request(ping), { test: true }, SECRETS[0])).toEqual({ status: 200, body: { status: 'pong', event: 'diagnostics:ping' } });
    expect(source.handshake?.(request(bitbucketHeaders(sign(SECRETS[0]))), payload, SECRETS[0])).toBeUndefined();
  });
});
