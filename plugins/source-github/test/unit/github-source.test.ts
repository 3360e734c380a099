// The GitHub source against GitHub's own signing code (@octokit/webhooks-methods) and a real payload.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceRequest } from '@hookwise/core';
import { githubFixture, runEsm } from '@hookwise/testing';
import { githubSource } from '../../src';

const body = githubFixture('pull_request.opened');
const octokitSign = (secret: string, payload: Buffer) =>
  runEsm('@octokit/webhooks-methods', ['sign'], 'sign(args.secret, args.payload)', { secret, payload: payload.toString('utf8') });
const request = (headers: Record<string, string | string[]>, raw = body): SourceRequest => ({
  headers,
  rawBody: raw,
  url: 'http://localhost/webhooks/r',
  receivedAt: Date.now(),
});

describe('GitHub source', () => {
  const secrets = ['new-secret-0123456789', 'old-secret-0123456789'];
  const signedNew = octokitSign(secrets[0], body);
  const signedOld = octokitSign(secrets[1], body);

  it('verifies X-Hub-Signature-256 made by @octokit/webhooks-methods, naming the matching secret by position', () => {
    const source = githubSource.create();
    expect(source.verify(request({ 'x-hub-signature-256': signedNew }), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(request({ 'x-hub-signature-256': signedOld }), secrets)).toEqual({ ok: true, secretIndex: 1 });
    expect(source.verify(request({ 'x-hub-signature-256': signedOld }), [secrets[0]])).toEqual({ ok: false, reason: 'digest does not match' });
  });

  it("accepts the SPEC's stand-in header X-CodeHostA-Signature-256 as the same style", () => {
    expect(githubSource.create().verify(request({ 'x-codehosta-signature-256': signedNew }), secrets)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('refuses a tampered body and reports a missing signature as missing', () => {
    const source = githubSource.create();
    const tampered = Buffer.from(body.toString('utf8').replace('opened', 'closed'));
    expect(source.verify(request({ 'x-hub-signature-256': signedNew }, tampered), secrets).ok).toBe(false);
    expect(source.verify(request({}), secrets)).toEqual({ ok: false, reason: 'missing x-hub-signature-256 header', missing: true });
  });

  it('reads X-Hub-Signature (SHA-1) only when the route opts in', () => {
    const sha1 = `sha1=${require('node:crypto').createHmac('sha1', secrets[0]).update(body).digest('hex')}`;
    expect(githubSource.create().headers).not.toContain('x-hub-signature');
    expect(githubSource.create().verify(request({ 'x-hub-signature': sha1 }), secrets)).toMatchObject({ ok: false, missing: true });
    const optedIn = githubSource.create({ allow_sha1: true });
    expect(optedIn.verify(request({ 'x-hub-signature': sha1 }), secrets)).toEqual({ ok: true, secretIndex: 0 });
    // A SHA-256 signature present wins: a forged SHA-1 beside it cannot downgrade the check.
    expect(optedIn.verify(request({ 'x-hub-signature': sha1, 'x-hub-signature-256': 'sha256=' + '0'.repeat(64) }), secrets).ok).toBe(false);
  });

  it('reads the event and delivery id from the real headers, then the stand-ins', () => {
    const source = githubSource.create();
    const real = request({ 'x-github-event': 'pull_request', 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958', 'x-codehosta-event': 'push' });
    expect(source.eventType?.(real, {})).toBe('pull_request');
    expect(source.deliveryId?.(real, {})).toBe('72d3162e-cc78-11e3-81ab-4c9367dc0958');
    const spec = request({ 'x-codehosta-event': 'push', 'x-codehosta-delivery': 'd-1' });
    expect(source.eventType?.(spec, {})).toBe('push');
    expect(source.deliveryId?.(spec, {})).toBe('d-1');
  });

  it('never throws on hostile header values', () => {
    const source = githubSource.create({ allow_sha1: true });
    for (const value of ['', '   ', 'sha256=', 'sha256=ü'.repeat(10), 'a'.repeat(65_536), '\u0000']) {
      expect(source.verify(request({ 'x-hub-signature-256': value }), secrets).ok).toBe(false);
      expect(source.verify(request({ 'x-hub-signature': value }), secrets).ok).toBe(false);
    }
    expect(source.verify(request({ 'x-hub-signature-256': [signedNew, 'x'] }), secrets)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('ships a README naming the real headers', () => {
    expect(readFileSync(join(__dirname, '../../README.md'), 'utf8')).toContain('X-Hub-Signature-256');
  });
});
