// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for the official account API
// (access token, customer-service message).
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { wechatPlatform } from '@hookwise/plugin-deliverer-wechat';

const APP_SECRET = 'wxsecret-c0ntract4e5f60718293a4b5c6d7e8f9';
const ACCESS_TOKEN = 'wx-access-contract-token';

export default delivererContractCase(
  'wechat',
  ({ server, test }) =>
    wechatPlatform.create(
      { api_base: server.url, app_id: 'wx1234567890abcdef', app_secret: APP_SECRET, home_channel: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o', timeout_seconds: 5 },
      test.ctx,
    ) as Deliverer,
  {
    secrets: [APP_SECRET, ACCESS_TOKEN],
    api: (req, scenario) => {
      if (req.path === '/cgi-bin/stable_token') return { json: { access_token: ACCESS_TOKEN, expires_in: 7200 } };
      if (req.path === '/cgi-bin/get_api_domain_ip') return { json: { ip_list: ['101.226.103.0/25'] } };
      return scenario === 'deliver'
        ? { json: { errcode: 0, errmsg: 'ok' } }
        : scenario === 'retryable'
          ? { status: 503, body: 'service unavailable' }
          : { json: { errcode: 45015, errmsg: 'response out of time limit or subscription is canceled' } };
    },
  },
);
