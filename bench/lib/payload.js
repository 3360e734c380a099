// Signed GitHub payloads for the bench: a JSON body of a given size and its X-Hub-Signature-256.
'use strict';
const { createHmac } = require('node:crypto');

const SECRET = 'bench-secret-0123456789abcdef';

/** A pull_request-like JSON object padded to `bytes` (within a few bytes). */
function payloadOfSize(bytes) {
  const base = {
    action: 'opened',
    number: 42,
    pull_request: { title: 'Bench: make it fast', user: { login: 'bench' }, head: { ref: 'bench' }, base: { ref: 'main' } },
    repository: { full_name: 'acme/widgets' },
    padding: '',
  };
  const empty = Buffer.byteLength(JSON.stringify(base));
  base.padding = 'x'.repeat(Math.max(0, bytes - empty));
  return Buffer.from(JSON.stringify(base));
}

function sign(body, secret = SECRET) {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Everything a load run needs: the body, its signature and the fixed headers. */
function signedRequest(bytes, secret = SECRET) {
  const body = payloadOfSize(bytes);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'pull_request',
      'x-hub-signature-256': sign(body, secret),
    },
  };
}

module.exports = { SECRET, payloadOfSize, sign, signedRequest };
