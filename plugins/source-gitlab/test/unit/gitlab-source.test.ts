// The GitLab source: secret tokens, signing tokens signed by the Standard Webhooks library, and GitLab's ids.
import { createHmac } from 'node:crypto';
import type { SourceRequest } from '@hookwise/core';
import { Webhook } from 'standardwebhooks';
import { gitlabSource } from '../../src';

// A push event as GitLab documents it (docs.gitlab.com/user/project/integrations/webhook_events/#push-events), shortened.
const body = Buffer.from(
  JSON.stringify({ object_kind: 'push', event_name: 'push', ref: 'refs/heads/master', project_id: 15, commits: [], total_commits_count: 0 }),
);
const request = (headers: Record<string, string>, raw = body, receivedAt = Date.now()): SourceRequest => ({
  headers,
  rawBody: raw,
  url: 'http://localhost/webhooks/r',
  receivedAt,
});
const signingToken = `whsec_${Buffer.from('gitlab-signing-key-0123456789').toString('base64')}`;
const sign = (secret: string, id: string, at: Date, raw = body) => new Webhook(secret.slice('whsec_'.length)).sign(id, at, raw.toString('utf8'));

describe('GitLab source', () => {
  it('compares X-Gitlab-Token (and the stand-in X-CodeHostB-Token) against each secret', () => {
    const source = gitlabSource.create();
    const secrets = ['token-new-0123456789', 'token-old-0123456789'];
    expect(source.verify(request({ 'x-gitlab-token': secrets[1] }), secrets)).toEqual({ ok: true, secretIndex: 1 });
    expect(source.verify(request({ 'x-codehostb-token': secrets[0] }), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(request({ 'x-gitlab-token': 'token-new-012345678' }), secrets)).toEqual({ ok: false, reason: 'token does not match' });
    expect(source.verify(request({}), secrets)).toMatchObject({ ok: false, missing: true });
  });

  it('verifies a signing token by the Standard Webhooks scheme, signed with the standardwebhooks library', () => {
    const source = gitlabSource.create();
    const id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': sign(signingToken, id, new Date()) };
    expect(source.verify(request(headers), ['plain-token-0123456789', signingToken])).toEqual({ ok: true, secretIndex: 1 });
    expect(source.verify(request(headers, Buffer.from('{"object_kind":"tag_push"}')), [signingToken]).ok).toBe(false);
  });

  it('refuses a signature older than the replay window, with a reason', () => {
    const source = gitlabSource.create({ tolerance_seconds: 300 });
    const at = new Date(Date.now() - 600_000);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': sign(signingToken, 'msg_1', at),
    };
    const verdict = source.verify(request(headers), [signingToken]);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toMatch(/s old \(tolerance 300 s\)/);
  });

  it('never lets a plain token stand in for a signing token, or the other way round', () => {
    const source = gitlabSource.create();
    expect(source.verify(request({ 'x-gitlab-token': signingToken }), [signingToken]).ok).toBe(false);
    // A signature made with an empty key or with the plain token itself is refused.
    const id = 'msg_x';
    const ts = Math.floor(Date.now() / 1000);
    const forged = `v1,${createHmac('sha256', Buffer.alloc(0))
      .update(`${id}.${ts}.${body.toString('utf8')}`)
      .digest('base64')} ${new Webhook(Buffer.from('plain-token-0123456789').toString('base64')).sign(id, new Date(ts * 1000), body.toString('utf8'))}`;
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': forged };
    expect(source.verify(request(headers), ['plain-token-0123456789', signingToken]).ok).toBe(false);
  });

  it('takes the delivery id from Idempotency-Key, then X-Gitlab-Event-UUID, then X-Gitlab-Webhook-UUID', () => {
    const source = gitlabSource.create();
    const all = { 'idempotency-key': 'idem-1', 'x-gitlab-event-uuid': 'event-1', 'x-gitlab-webhook-uuid': 'hook-1', 'x-gitlab-event': 'Push Hook' };
    expect(source.deliveryId?.(request(all), {})).toBe('idem-1');
    expect(source.deliveryId?.(request({ 'x-gitlab-event-uuid': 'event-1', 'x-gitlab-webhook-uuid': 'hook-1' }), {})).toBe('event-1');
    expect(source.deliveryId?.(request({ 'x-gitlab-webhook-uuid': 'hook-1' }), {})).toBe('hook-1');
    expect(source.eventType?.(request(all), {})).toBe('Push Hook');
    expect(source.eventType?.(request({ 'x-codehostb-event': 'Merge Request Hook' }), {})).toBe('Merge Request Hook');
  });
});
