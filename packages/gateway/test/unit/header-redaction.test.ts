// Headers the dashboard keeps: signature and credential values never kept, known secrets hidden when shown.
import { keepableHeaders, redactHeaders, REDACTED, shownHeaders } from '../../src/observe/header-redaction';

describe('header redaction', () => {
  it('keeps no value of a signature, token or credential header, whatever the sender calls it', () => {
    const kept = keepableHeaders({
      'X-Hub-Signature-256': 'sha256=SECRETVALUE1',
      'x-gitlab-token': 'SECRETVALUE2',
      'Stripe-Signature': 't=1,v1=SECRETVALUE3',
      'x-shopify-hmac-sha256': 'SECRETVALUE4',
      authorization: 'Bearer SECRETVALUE5',
      cookie: 'a=b',
      'x-api-key': 'SECRETVALUE6',
      'user-agent': 'GitHub-Hookshot/1',
      'x-request-id': 'd-1',
    });
    expect(Object.fromEntries(kept)).toEqual({
      'x-hub-signature-256': REDACTED,
      'x-gitlab-token': REDACTED,
      'stripe-signature': REDACTED,
      'x-shopify-hmac-sha256': REDACTED,
      authorization: REDACTED,
      cookie: REDACTED,
      'x-api-key': REDACTED,
      'user-agent': 'GitHub-Hookshot/1',
      'x-request-id': 'd-1',
    });
    expect(JSON.stringify(kept)).not.toContain('SECRETVALUE');
  });

  it('hides a value that holds a known secret when shown, sorts by name, joins repeated headers and cuts long values', () => {
    const shown = redactHeaders({ 'x-b': ['one', 'two'], 'x-a': 'plain route-secret-0123456789', 'x-long': 'x'.repeat(600) }, (v) =>
      v.includes('route-secret-0123456789'),
    );
    expect(shown.map(([name]) => name)).toEqual(['x-a', 'x-b', 'x-long']);
    expect(shown[0][1]).toBe(REDACTED);
    expect(shown[1][1]).toBe('one, two');
    expect(shown[2][1]).toHaveLength(513);
    expect(shownHeaders([['x', REDACTED]], () => true)).toEqual([['x', REDACTED]]);
  });
});
