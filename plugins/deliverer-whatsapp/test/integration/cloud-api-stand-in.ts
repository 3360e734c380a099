// What the whatsapp deliverer's integration tests share: a Cloud API stand-in, fresh for each test, answering a
// send as the Messages API does ({messaging_product, contacts: [{input, wa_id}], messages: [{id}]}, wamids
// numbered from wamid.1), and the deliverer on it with a virtual clock (the pair rate waits on it).
import type { Deliverer } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import { whatsappPlatform, type CloudApiOptions } from '@hookwise/plugin-deliverer-whatsapp';

export const TOKEN = 'EAAGm0PX4ZCpsBAtesttoken0123456789abcdef';
export const PHONE_ID = '106540352242922';

/** The current test's stand-in (set by useCloudApiStandIn's beforeEach). */
export let server: RecordingServer;

/** Call at the top of a test file: starts a stand-in before each test and closes it after. */
export function useCloudApiStandIn(): void {
  beforeEach(async () => {
    let n = 1;
    server = await startRecordingServer((req) => ({
      status: 200,
      json: { messaging_product: 'whatsapp', contacts: [{ input: (req.json as { to: string }).to, wa_id: '15557654321' }], messages: [{ id: `wamid.${n++}` }] },
    }));
  });
  afterEach(() => server.close());
}

/** The deliverer on the stand-in (api_version v21.0, home_channel 15551230000), with its test context and clock. */
export function setup(overrides: Partial<CloudApiOptions> = {}) {
  const test = createTestPluginContext();
  const clock = new VirtualClock();
  const options: CloudApiOptions = {
    api_base: server.url,
    token: TOKEN,
    phone_number_id: PHONE_ID,
    api_version: 'v21.0',
    home_channel: '15551230000',
    timeout_seconds: 5,
    ...overrides,
  };
  const deliverer: Deliverer = whatsappPlatform.createDeliverer(options, test.ctx, { clock });
  return { ...test, deliverer, clock };
}
