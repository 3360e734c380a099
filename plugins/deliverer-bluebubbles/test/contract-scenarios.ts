// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for the bridge server's REST API.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { blueBubblesPlatform } from '@hookwise/plugin-deliverer-bluebubbles';

const PASSWORD = 'bb-c0ntract p@ss/42';

export default delivererContractCase(
  'bluebubbles',
  ({ server, test }) =>
    blueBubblesPlatform.create(
      { api_base: server.url, password: PASSWORD, home_channel: 'iMessage;-;+15555550123', timeout_seconds: 5 },
      test.ctx,
    ) as Deliverer,
  {
    secrets: [PASSWORD, encodeURIComponent(PASSWORD)],
    api: (req, scenario) => {
      if (req.path === '/api/v1/ping') return { json: { status: 200, message: 'Ping received!', data: 'pong' } };
      return scenario === 'deliver'
        ? { json: { status: 200, message: 'Message sent!', data: { guid: 'guid-contract' } } }
        : scenario === 'retryable'
          ? { status: 500, json: { status: 500, message: 'iMessage has encountered an error', error: { type: 'iMessage Error', message: 'Failed to send' } } }
          : { status: 400, json: { status: 400, message: "You've made a bad request!", error: { type: 'Validation Error', message: 'Chat does not exist' } } };
    },
  },
);
