// The verifier contract from @hookwise/testing, as a third-party author would run it.
import { describeVerifierContract } from '@hookwise/testing';
import { createCodehostBVerifier } from '@hookwise/plugin-verifier-codehost-b';

describeVerifierContract('codehost_b', createCodehostBVerifier, {
  sign: (_body, secret) => ({ 'X-CodeHostB-Token': secret }),
});
