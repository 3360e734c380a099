// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for the Home Assistant REST API.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { homeAssistantPlatform } from '@hookwise/plugin-deliverer-homeassistant';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.contract.c2lnbmF0dXJlX2NvbnRyYWN0';

export default delivererContractCase(
  'homeassistant',
  ({ server, test }) => homeAssistantPlatform.create({ api_base: server.url, token: TOKEN, timeout_seconds: 5 }, test.ctx) as Deliverer,
  {
    secrets: [TOKEN],
    api: (req, scenario) =>
      scenario === 'deliver'
        ? { json: req.method === 'GET' ? { message: 'API running.' } : [] }
        : scenario === 'retryable'
          ? { status: 500, body: '500 Internal Server Error\n\nServer got itself in trouble' }
          : { status: 400, body: '400: Bad Request' },
  },
);
