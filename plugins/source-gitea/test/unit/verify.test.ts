// Unit tests of the Gitea/Forgejo source: signatures made the way Gitea's webhook sender makes them (hex
// HMAC-SHA256 of the JSON payload, no prefix, also for form-encoded webhooks), event and delivery headers, and
// hostile header values.
import { createHmac } from 'node:crypto';
import type { HeaderMap, SourceRequest } from '@hookwise/core';
import plugin, { giteaSource } from '../../src';

// The push example on Gitea's "Webhooks" page (https://docs.gitea.com/usage/webhooks), trimmed, without its
// deprecated `secret` field.
const PUSH = `{
  "ref": "refs/heads/develop",
  "before": "28e1879d029cb852e4844d9c718537df08844e03",
  "after": "bffeb74224043ba2feb48d137756c8a9331c449a",
  "compare_url": "http://localhost:3000/gitea/webhooks/compare/28e1879d029cb852e4844d9c718537df08844e03...bffeb74224043ba2feb48d137756c8a9331c449a",
  "commits": [
    {
      "id": "bffeb74224043ba2feb48d137756c8a9331c449a",
      "message": "Webhooks Yay!",
      "url": "http://localhost:3000/gitea/webhooks/commit/bffeb74224043ba2feb48d137756c8a9331c449a",
      "author": { "name": "Gitea", "email": "someone@gitea.io", "username": "gitea" },
      "committer": { "name": "Gitea", "email": "someone@gitea.io", "username": "gitea" },
      "timestamp": "2017-03-13T13:52:11-04:00"
    }
  ],
  "repository": { "id": 140, "name": "webhooks", "full_name": "gitea/webhooks", "private": false, "default_branch": "master" },
  "pusher": { "id": 1, "login": "gitea", "full_name": "Gitea", "email": "someone@gitea.io", "username": "gitea" },
  "sender": { "id": 1, "login": "gitea", "full_name": "Gitea", "email": "someone@gitea.io", "username": "gitea" }
}`;
const body = Buffer.from(PUSH);
const DELIVERY = 'f6266f16-1bf3-46a5-9ea4-602e06ead473';
const SECRETS = ['gitea-new-secret', 'gitea-old-secret'] as const;

const hmac = (secret: string, data: Buffer | string) => createHmac('sha256', secret).update(data).digest('hex');

function request(headers: HeaderMap, rawBody: Buffer = body): SourceRequest {
  return { headers, rawBody, url: 'https://hooks.example.com/webhooks/gitea', receivedAt: Date.now() };
}

/** The headers Gitea (1.2x) sends with a push, signature made with `secret` over `signed`. */
function giteaHeaders(signature: string | string[] | undefined, extra: HeaderMap = {}): HeaderMap {
  return {
    'content-type': 'application/json',
    'x-gitea-delivery': DELIVERY,
    'x-gitea-event': 'push',
    'x-gitea-event-type': 'push',
    'x-gitea-signature': signature,
    'x-gogs-delivery': DELIVERY,
    'x-gogs-event': 'push',
    'x-gogs-signature': signature,
    'x-github-delivery': DELIVERY,
    'x-github-event': 'push',
    'x-hub-signature-256': typeof signature === 'string' ? `sha256=${signature}` : undefined,
    ...extra,
  };
}

const source = giteaSource.create();

describe('gitea source: verification', () => {
  it('is contributed as source gitea, also known as forgejo', () => {
    expect(plugin.contributes.map((c) => `${c.kind}:${c.id}`)).toEqual(['source:gitea']);
    expect(plugin.contributes[0].aliases).toEqual(['forgejo']);
    expect(source.headers.slice(0, 2)).toEqual(['x-gitea-signature', 'x-forgejo-signature']);
  });

  it('accepts the hex HMAC-SHA256 of the exact body (no prefix) with the first secret', () => {
    expect(source.verify(request(giteaHeaders(hmac(SECRETS[0], body))), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('names the second secret during a rotation', () => {
    expect(source.verify(request(giteaHeaders(hmac(SECRETS[1], body))), SECRETS)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('accepts Forgejo, which sends X-Forgejo-Signature (and X-Gitea-Signature too)', () => {
    const digest = hmac(SECRETS[0], body);
    const forgejoOnly: HeaderMap = {
      'content-type': 'application/json',
      'x-forgejo-signature': digest,
      'x-forgejo-event-type': 'push',
      'x-forgejo-delivery': DELIVERY,
    };
    expect(source.verify(request(forgejoOnly), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
    const both = giteaHeaders(digest, { 'x-forgejo-signature': digest, 'x-forgejo-delivery': DELIVERY });
    expect(source.verify(request(both), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('checks a form-encoded webhook against the JSON in its payload field, which is what Gitea signs', () => {
    const form = Buffer.from(new URLSearchParams({ payload: PUSH }).toString());
    const headers = giteaHeaders(hmac(SECRETS[1], PUSH), { 'content-type': 'application/x-www-form-urlencoded' });
    expect(source.verify(request(headers, form), SECRETS)).toEqual({ ok: true, secretIndex: 1 });
    // The same form with a changed payload field fails.
    const altered = Buffer.from(new URLSearchParams({ payload: PUSH.replace('Webhooks Yay!', 'Webhooks Nay!') }).toString());
    expect(source.verify(request(headers, altered), SECRETS).ok).toBe(false);
    // A JSON body is never read as a form, even when its signature would match the form field.
    expect(source.verify(request(giteaHeaders(hmac(SECRETS[1], PUSH)), form), SECRETS).ok).toBe(false);
  });

  it('refuses a signature made with another secret, without naming any secret', () => {
    const verdict = source.verify(request(giteaHeaders(hmac('guess', body))), SECRETS);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.missing).toBeUndefined();
    for (const secret of [...SECRETS, 'guess']) expect(verdict.reason).not.toContain(secret);
  });

  it('refuses a tampered body', () => {
    const tampered = Buffer.from(PUSH.replace('refs/heads/develop', 'refs/heads/main'));
    expect(source.verify(request(giteaHeaders(hmac(SECRETS[0], body)), tampered), SECRETS).ok).toBe(false);
  });

  it('says missing without a signature header, and for the empty one Gitea sends when the hook has no secret', () => {
    expect(source.verify(request(giteaHeaders(undefined)), SECRETS)).toEqual({ ok: false, reason: 'missing x-gitea-signature header', missing: true });
    expect(source.verify(request(giteaHeaders('')), SECRETS)).toMatchObject({ ok: false, missing: true });
  });

  it("refuses GitHub's style (X-Hub-Signature-256 alone) on a gitea route, although Gitea sends that header too", () => {
    const github: HeaderMap = { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(SECRETS[0], body)}` };
    expect(source.verify(request(github), SECRETS)).toMatchObject({ ok: false, missing: true });
  });

  it.each<[string, string | string[]]>([
    ['an array holding an empty value', ['']],
    ['a sha256= prefix (GitHub style)', `sha256=${hmac(SECRETS[0], body)}`],
    ['a short digest', 'abcdef'],
    ['non-hex digits', 'x'.repeat(64)],
    ['non-ASCII characters', 'ü'.repeat(64)],
    ['a 64 KiB value', 'a'.repeat(64 * 1024)],
    ['two digests joined by a proxy', `${hmac(SECRETS[0], body)}, ${hmac(SECRETS[1], body)}`],
  ])('refuses %s cleanly, without throwing', (_what, value) => {
    let verdict: ReturnType<typeof source.verify> | undefined;
    expect(() => {
      verdict = source.verify(request(giteaHeaders(value)), SECRETS);
    }).not.toThrow();
    expect(verdict?.ok).toBe(false);
  });

  it('does not throw on a form body that is not valid form or UTF-8', () => {
    const headers = giteaHeaders(hmac(SECRETS[0], body), { 'content-type': 'application/x-www-form-urlencoded' });
    for (const raw of [Buffer.from('payload=%E0%A4%A'), Buffer.from([0xff, 0xfe, 0x3d, 0x25]), Buffer.alloc(0)]) {
      expect(() => source.verify(request(headers, raw), SECRETS)).not.toThrow();
      expect(source.verify(request(headers, raw), SECRETS).ok).toBe(false);
    }
  });
});

describe('gitea source: event type and delivery id', () => {
  const payload = JSON.parse(PUSH) as Record<string, unknown>;
  const prSync = giteaHeaders(hmac(SECRETS[0], body), { 'x-gitea-event': 'pull_request', 'x-gitea-event-type': 'pull_request_sync' });

  it('names the event by the detailed X-Gitea-Event-Type by default', () => {
    expect(source.eventType?.(request(giteaHeaders('x')), payload)).toBe('push');
    expect(source.eventType?.(request(prSync), payload)).toBe('pull_request_sync');
  });

  it("names it by the family in X-Gitea-Event with event_from: 'event'", () => {
    const coarse = giteaSource.create({ event_from: 'event' });
    expect(coarse.eventType?.(request(prSync), payload)).toBe('pull_request');
  });

  it('falls back to the other header when one is absent or empty', () => {
    const oldGitea = giteaHeaders('x', { 'x-gitea-event-type': undefined, 'x-gitea-event': 'issues' });
    expect(source.eventType?.(request(oldGitea), payload)).toBe('issues');
    // Some Gitea versions send an empty X-Gitea-Event for package events.
    const packageEvent = giteaHeaders('x', { 'x-gitea-event': '', 'x-gitea-event-type': 'package' });
    expect(giteaSource.create({ event_from: 'event' }).eventType?.(request(packageEvent), payload)).toBe('package');
    const forgejo: HeaderMap = { 'x-forgejo-event': 'pull_request', 'x-forgejo-event-type': 'pull_request_label' };
    expect(source.eventType?.(request(forgejo), payload)).toBe('pull_request_label');
  });

  it('takes the delivery id from X-Gitea-Delivery, or X-Forgejo-Delivery', () => {
    expect(source.deliveryId?.(request(giteaHeaders('x')), payload)).toBe(DELIVERY);
    expect(source.deliveryId?.(request({ 'x-forgejo-delivery': 'a6f1c2d3-0000-4000-8000-000000000001' }), payload)).toBe(
      'a6f1c2d3-0000-4000-8000-000000000001',
    );
    expect(source.deliveryId?.(request({}), payload)).toBeUndefined();
  });
});
