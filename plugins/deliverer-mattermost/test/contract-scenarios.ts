// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for a Mattermost server.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { mattermostPlatform } from '@hookwise/plugin-deliverer-mattermost';

const TOKEN = 'contracttoken8kcr1pbtmrgzbg';

export default delivererContractCase(
  'mattermost',
  ({ server, test }) =>
    mattermostPlatform.create({ api_base: server.url, token: TOKEN, home_channel: 'bq8wmsd5fpngdmbw1wsn9cbmjo', timeout_seconds: 5 }, test.ctx) as Deliverer,
  {
    secrets: [TOKEN],
    api: (req, scenario) =>
      scenario === 'deliver'
        ? { status: req.method === 'POST' ? 201 : 200, json: { id: 'post1', username: 'bot' } }
        : scenario === 'retryable'
          ? { status: 503, json: { id: 'app.unavailable', message: 'Service unavailable', status_code: 503 } }
          : { status: 400, json: { id: 'api.post.create_post.message.app_error', message: 'Invalid message', status_code: 400 } },
  },
);
