// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for the workspace Web API.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { slackPlatform } from '@hookwise/plugin-deliverer-slack';

const TOKEN = 'xoxb-1234567890-0987654321-ContractTokenForKit';

export default delivererContractCase(
  'slack',
  ({ server, test }) => slackPlatform.create({ api_base: server.url, token: TOKEN, home_channel: 'C0HOMEHOME1', timeout_seconds: 5 }, test.ctx) as Deliverer,
  {
    secrets: [TOKEN],
    api: (_req, scenario) =>
      scenario === 'deliver'
        ? { json: { ok: true, channel: 'C0HOMEHOME1', ts: '1700000000.000001' } }
        : scenario === 'retryable'
          ? { status: 503, body: 'service unavailable' }
          : { json: { ok: false, error: 'channel_not_found' } },
  },
);
