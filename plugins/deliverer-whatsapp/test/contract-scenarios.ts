// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for the Cloud API.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { whatsappPlatform } from '@hookwise/plugin-deliverer-whatsapp';

const TOKEN = 'EAAGm0PX4ZCpsBAcontracttoken0123456789';

export default delivererContractCase(
  'whatsapp',
  ({ server, test }) =>
    whatsappPlatform.create(
      { api_base: server.url, token: TOKEN, phone_number_id: '106540352242922', api_version: 'v21.0', home_channel: '15551230000', timeout_seconds: 5 },
      test.ctx,
    ) as Deliverer,
  {
    secrets: [TOKEN],
    api: (_req, scenario) =>
      scenario === 'deliver'
        ? { json: { messaging_product: 'whatsapp', contacts: [{ input: '15551230000', wa_id: '15551230000' }], messages: [{ id: 'wamid.1' }] } }
        : scenario === 'retryable'
          ? { status: 503, json: { error: { message: 'Service temporarily unavailable', type: 'OAuthException', code: 2 } } }
          : { status: 400, json: { error: { message: '(#100) Invalid parameter', type: 'OAuthException', code: 100 } } },
  },
);
