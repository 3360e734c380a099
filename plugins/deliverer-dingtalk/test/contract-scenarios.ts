// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for the custom robot webhook.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { dingtalkPlatform } from '@hookwise/plugin-deliverer-dingtalk';

const TOKEN = 'c0ntract1234567890abcdef1234567890abcdef1234567890abcdef12345678';
const SECRET = 'SECcontract0123456789abcdef0123456789abcdef0123456789abcdef0123';

export default delivererContractCase(
  'dingtalk',
  ({ server, test }) =>
    dingtalkPlatform.create({ api_base: server.url, token: TOKEN, secret: SECRET, msgtype: 'text', timeout_seconds: 5 }, test.ctx) as Deliverer,
  {
    secrets: [TOKEN, SECRET],
    api: (_req, scenario) =>
      scenario === 'deliver'
        ? { json: { errcode: 0, errmsg: 'ok' } }
        : scenario === 'retryable'
          ? { status: 503, body: 'service unavailable' }
          : { json: { errcode: 310000, errmsg: 'sign not match, more: [https://ding-doc.dingtalk.com/doc#/serverapi2/qf2nxq]' } },
  },
);
