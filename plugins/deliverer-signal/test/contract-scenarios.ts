// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for the JSON-RPC daemon.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { signalPlatform } from '@hookwise/plugin-deliverer-signal';

export default delivererContractCase(
  'signal',
  ({ server, test }) =>
    signalPlatform.create({ api_base: server.url, account: '+4915100000001', home_channel: '+4915100000002', timeout_seconds: 5 }, test.ctx) as Deliverer,
  {
    api: (req, scenario) => {
      if (req.path === '/api/v1/check') return { status: 200, body: '' };
      if (scenario === 'deliver')
        return { json: { jsonrpc: '2.0', result: { timestamp: 1700000000000, results: [{ recipientAddress: { number: '+1' }, type: 'SUCCESS' }] }, id: 'x' } };
      if (scenario === 'retryable') return { status: 503, body: 'daemon restarting' };
      return { json: { jsonrpc: '2.0', error: { code: -32602, message: 'Invalid recipient' }, id: 'x' } };
    },
  },
);
