// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for the Bot API.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { telegramPlatform } from '@hookwise/plugin-deliverer-telegram';

const TOKEN = '123456789:AAEcontractTokenForTheKit-0123456';

export default delivererContractCase(
  'telegram',
  ({ server, test }) => telegramPlatform.create({ token: TOKEN, api_base: server.url, timeout_seconds: 5, home_channel: '-100200' }, test.ctx) as Deliverer,
  {
    secrets: [TOKEN],
    api: (_req, scenario) =>
      scenario === 'deliver'
        ? { json: { ok: true, result: { message_id: 7, chat: { id: -100200 }, text: 'x' } } }
        : scenario === 'retryable'
          ? { status: 502, json: { ok: false, error_code: 502, description: 'Bad Gateway' } }
          : { status: 400, json: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } },
  },
);
