// The verifier contract from @hookwise/testing, as a third-party author would run it.
import { createHmac } from 'node:crypto';
import { describeVerifierContract } from '@hookwise/testing';
import { createGenericVerifier } from '@hookwise/plugin-verifier-generic';

describeVerifierContract('generic', createGenericVerifier, {
  sign: (body, secret) => ({ 'X-Webhook-Signature': createHmac('sha256', secret).update(body).digest('hex') }),
});
