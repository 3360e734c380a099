// The verifier contract from @hookwise/testing, as a third-party author would run it.
import { createHmac } from 'node:crypto';
import { describeVerifierContract } from '@hookwise/testing';
import { createCodehostAVerifier } from '@hookwise/plugin-verifier-codehost-a';

describeVerifierContract('codehost_a', createCodehostAVerifier, {
  sign: (body, secret) => ({ 'X-CodeHostA-Signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` }),
});
