// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for the open platform API
// (tenant token, bot info, messages).
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { feishuPlatform } from '@hookwise/plugin-deliverer-feishu';

const APP_SECRET = 'appsecret-c0ntract9b7a6e5f4d3c2b1a';
const TOKEN_PATH = '/open-apis/auth/v3/tenant_access_token/internal';

export default delivererContractCase(
  'feishu',
  ({ server, test }) =>
    feishuPlatform.create(
      { api_base: server.url, app_id: 'cli_a1b2c3d4e5f6', app_secret: APP_SECRET, home_channel: 'oc_home', timeout_seconds: 5 },
      test.ctx,
    ) as Deliverer,
  {
    secrets: [APP_SECRET, 't-g1044ab7contracttoken'],
    api: (req, scenario) => {
      if (req.path === TOKEN_PATH) return { json: { code: 0, msg: 'ok', tenant_access_token: 't-g1044ab7contracttoken', expire: 7200 } };
      if (req.path === '/open-apis/bot/v3/info') return { json: { code: 0, msg: 'ok', bot: { app_name: 'Hookwise' } } };
      return scenario === 'deliver'
        ? { json: { code: 0, msg: 'success', data: { message_id: 'om_contract' } } }
        : scenario === 'retryable'
          ? { status: 503, body: 'service unavailable' }
          : { status: 400, json: { code: 230002, msg: 'Bot/User can NOT be out of the chat.' } };
    },
  },
);
