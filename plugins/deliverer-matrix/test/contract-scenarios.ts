// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for a Matrix homeserver.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { matrixPlatform } from '@hookwise/plugin-deliverer-matrix';

const TOKEN = 'syt_aG9va3dpc2U_contractToken_9z8y7x';

export default delivererContractCase(
  'matrix',
  ({ server, test }) =>
    matrixPlatform.create({ api_base: server.url, token: TOKEN, home_channel: '!room:example.org', timeout_seconds: 5 }, test.ctx) as Deliverer,
  {
    secrets: [TOKEN],
    api: (req, scenario) =>
      scenario === 'deliver'
        ? { json: req.path.endsWith('/whoami') ? { user_id: '@bot:example.org' } : { event_id: '$e1' } }
        : scenario === 'retryable'
          ? { status: 502, json: { errcode: 'M_UNKNOWN', error: 'Bad gateway' } }
          : { status: 400, json: { errcode: 'M_BAD_JSON', error: 'Content not JSON.' } },
  },
);
