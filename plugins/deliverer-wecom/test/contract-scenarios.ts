// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for the work API (token, message send).
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { wecomPlatform } from '@hookwise/plugin-deliverer-wecom';

const CORP_SECRET = 'corpsecret-C0ntract7Ts6Rq5Po4Nm3Lk2';
const ACCESS_TOKEN = 'wecom-token-contract-abcdef';

export default delivererContractCase(
  'wecom',
  ({ server, test }) =>
    wecomPlatform.create(
      { api_base: server.url, corp_id: 'ww0123456789abcdef', corp_secret: CORP_SECRET, agent_id: 1000002, home_channel: 'wrHomeChat', timeout_seconds: 5 },
      test.ctx,
    ) as Deliverer,
  {
    secrets: [CORP_SECRET, ACCESS_TOKEN],
    api: (req, scenario) => {
      if (req.path === '/cgi-bin/gettoken') return { json: { errcode: 0, errmsg: 'ok', access_token: ACCESS_TOKEN, expires_in: 7200 } };
      if (req.path === '/cgi-bin/get_api_domain_ip') return { json: { errcode: 0, errmsg: 'ok', ip_list: ['182.254.11.176'] } };
      return scenario === 'deliver'
        ? { json: { errcode: 0, errmsg: 'ok', msgid: 'msg-contract' } }
        : scenario === 'retryable'
          ? { status: 503, body: 'service unavailable' }
          : { json: { errcode: 93000, errmsg: 'invalid webhook url' } };
    },
  },
);
