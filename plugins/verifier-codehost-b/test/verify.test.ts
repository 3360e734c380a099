import plugin, { createCodehostBVerifier } from '../src';

const verifier = createCodehostBVerifier();
const body = Buffer.from('{"object_kind":"push"}');

describe('codehost_b verifier', () => {
  it('is a plugin contributing verifier codehost_b on X-CodeHostB-Token', () => {
    expect(plugin.contributes.map((c) => `${c.kind}:${c.id}`)).toEqual(['verifier:codehost_b']);
    expect(verifier.headers).toEqual(['x-codehostb-token']);
  });

  it('accepts the plain secret (not an HMAC) in exact match', () => {
    expect(verifier.verify({ headers: { 'x-codehostb-token': 's3cret-token' }, rawBody: body }, 's3cret-token')).toEqual({ ok: true });
  });

  it.each([['a prefix of the secret', 's3cret'], ['a longer value', 's3cret-token!'], ['another case', 'S3CRET-TOKEN'], ['non-ASCII', 's3crét-token'], ['empty', '']])(
    'rejects %s cleanly',
    (_what, token) => {
      expect(verifier.verify({ headers: { 'x-codehostb-token': token }, rawBody: body }, 's3cret-token').ok).toBe(false);
    },
  );
});
