// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for the SMS gateway REST API.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { smsPlatform } from '@hookwise/plugin-deliverer-sms';

const SID = `AC${'0123456789abcdef'.repeat(2)}`;
const AUTH_TOKEN = 'c0ntract0123456789abcdef01234567';

export default delivererContractCase(
  'sms',
  ({ server, test }) =>
    smsPlatform.create(
      { api_base: server.url, account_sid: SID, auth_token: AUTH_TOKEN, from: '+15005550006', home_channel: '+15551230000', timeout_seconds: 5 },
      test.ctx,
    ) as Deliverer,
  {
    secrets: [AUTH_TOKEN],
    api: (_req, scenario) =>
      scenario === 'deliver'
        ? { status: 201, json: { sid: `SM${'0'.repeat(32)}`, status: 'queued' } }
        : scenario === 'retryable'
          ? { status: 503, json: { code: 20503, message: 'Service unavailable', status: 503 } }
          : { status: 400, json: { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 } },
  },
);
