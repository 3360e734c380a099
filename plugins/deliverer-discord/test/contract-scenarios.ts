// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for the channel API.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { discordPlatform } from '@hookwise/plugin-deliverer-discord';

const TOKEN = 'MTA5ODc2NTQzMjEwOTg3NjU0.Contract.abcdefghijklmnopqrstuvwxyz0123';

export default delivererContractCase(
  'discord',
  ({ server, test }) =>
    discordPlatform.create({ api_base: server.url, token: TOKEN, home_channel: '41771983423143936', timeout_seconds: 5 }, test.ctx) as Deliverer,
  {
    secrets: [TOKEN],
    api: (_req, scenario) =>
      scenario === 'deliver'
        ? { json: { id: '901', channel_id: '41771983423143936', content: 'x' } }
        : scenario === 'retryable'
          ? { status: 503, json: { message: 'upstream unavailable' } }
          : { status: 403, json: { message: 'Missing Permissions', code: 50013 } },
  },
);
