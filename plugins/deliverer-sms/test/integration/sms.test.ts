// Wire format from Twilio's Message resource docs (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource:
// form-encoded To/From/Body, HTTP Basic auth, 201 with {sid: "SM...", status: "queued", ...}) and its error
// answers ({code, message, more_info, status}; https://www.twilio.com/docs/errors/21211, /20003, /20429).
import type { Deliverer } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { smsPlatform, type SmsGatewayOptions } from '@hookwise/plugin-deliverer-sms';

const SID = `AC${'0123456789abcdef'.repeat(2)}`;
const AUTH_TOKEN = 'f00dbabe0123456789abcdef01234567';

let server: RecordingServer;
beforeEach(async () => {
  let n = 1;
  // The create answer's shape from the Message resource page (trimmed to the fields read).
  server = await startRecordingServer(() => ({
    status: 201,
    json: {
      account_sid: SID,
      api_version: '2010-04-01',
      body: 'x',
      direction: 'outbound-api',
      num_segments: '1',
      sid: `SM${String(n++).padStart(32, '0')}`,
      status: 'queued',
    },
  }));
});
afterEach(() => server.close());

function setup(overrides: Partial<SmsGatewayOptions> = {}) {
  const test = createTestPluginContext();
  const clock = new VirtualClock();
  const options: SmsGatewayOptions = {
    api_base: server.url,
    account_sid: SID,
    auth_token: AUTH_TOKEN,
    from: '+15005550006',
    home_channel: '+15551230000',
    timeout_seconds: 5,
    ...overrides,
  };
  const deliverer: Deliverer = smsPlatform.createDeliverer(options, test.ctx, { clock });
  return { ...test, deliverer, clock };
}

const basic = `Basic ${Buffer.from(`${SID}:${AUTH_TOKEN}`).toString('base64')}`;

describe('sms (Twilio SMS)', () => {
  it('contributes sms (alias platform_05), which must be enabled', () => {
    expect(plugin.contributes).toEqual([smsPlatform]);
    expect([smsPlatform.id, smsPlatform.aliases]).toEqual(['sms', ['platform_05']]);
    expect(smsPlatform.requiresEnabled).toBe(true);
  });

  it('POSTs form-encoded To/From/Body with Basic auth to the Messages resource, markdown stripped', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('**CI** failed: see [log](https://ci.example/1)', { chat_id: '+15557654321' }), deliverOptions());
    const [req] = server.requests;
    expect([req.method, req.path]).toEqual(['POST', `/2010-04-01/Accounts/${SID}/Messages.json`]);
    expect(req.headers.authorization).toBe(basic);
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.form).toEqual({ To: '+15557654321', From: '+15005550006', Body: 'CI failed: see log (https://ci.example/1)' });
    expect(receipt).toEqual({ target: '+15557654321', ids: [`SM${'1'.padStart(32, '0')}`] });
  });

  it('uses MessagingServiceSid when from is a Messaging Service, and home_channel without chat_id', async () => {
    const service = `MG${'ab'.repeat(16)}`;
    const { deliverer } = setup({ from: service });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests[0].form).toEqual({ To: '+15551230000', MessagingServiceSid: service, Body: 'hi' });
  });

  it('splits answers at 1600 characters', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('lorem ipsum '.repeat(300)), deliverOptions());
    const bodies = server.requests.map((r) => r.form!.Body);
    expect(bodies.length).toBe(3);
    for (const b of bodies) expect(b.length).toBeLessThanOrEqual(1600);
  });

  // Before: a 4 MB answer became 2,500 SMS sent back to back.
  it('sends at most five SMS by default, one a second, the last saying the answer was cut', async () => {
    const { deliverer, clock } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('lorem ipsum '.repeat(350_000)), deliverOptions());
    const bodies = server.requests.map((r) => r.form!.Body);
    expect(bodies).toHaveLength(5);
    expect(bodies[4]).toMatch(/\[Answer truncated: it had \d+ parts, only the first 5 were sent \(max_parts\)\.\]$/);
    for (const b of bodies) expect(b.length).toBeLessThanOrEqual(1600);
    expect(clock.waits).toEqual([1000, 1000, 1000, 1000]);
    expect(receipt.truncated).toEqual({ parts: expect.any(Number), sent: 5 });
  });

  it.each(['15557654321', '+1 555 765 4321', '+15557654321,+15550000000', '..', '+0123456'])('refuses To %j before sending', async (to) => {
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: to }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(err.message).toContain('E.164');
    expect(server.requests).toHaveLength(0);
  });

  it('does not count a 2xx without a message sid as sent', async () => {
    const { deliverer } = setup();
    server.queue({ status: 200, json: { status: 'ok' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
    expect(err.message).toContain('sid (SM...)');
  });

  it('keeps the auth token out of errors in every encoding, Basic credentials included', async () => {
    const { deliverer } = setup();
    const echoed = `auth=${Buffer.from(`${SID}:${AUTH_TOKEN}`).toString('base64')} json="${AUTH_TOKEN}" url=${encodeURIComponent(AUTH_TOKEN)}`;
    server.queue({ status: 400, json: { code: 21602, message: echoed, status: 400 } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect(err.message).not.toContain(AUTH_TOKEN);
    expect(err.message).not.toContain(Buffer.from(`${SID}:${AUTH_TOKEN}`).toString('base64').slice(-40));
  });

  it('retries a 429 (error 20429) after Retry-After', async () => {
    const { deliverer } = setup();
    server.queue({
      status: 429,
      headers: { 'retry-after': '1' },
      json: { code: 20429, message: 'Too Many Requests', more_info: 'https://www.twilio.com/docs/errors/20429', status: 429 },
    });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 401 (error 20003) and never shows the auth token', async () => {
    const { deliverer, logs, redacted } = setup();
    server.queue({ status: 401, json: { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(server.requests).toHaveLength(1);
    expect(err.message + logs.join('\n')).not.toContain(AUTH_TOKEN);
    expect(redacted).toContain(AUTH_TOKEN);
  });

  it('reports an invalid recipient (error 21211) as a bad target', async () => {
    const { deliverer } = setup();
    server.queue({ status: 400, json: { code: 21211, message: "Invalid 'To' Phone Number", status: 400 } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
  });

  it('start() fetches the account with Basic auth', async () => {
    const { deliverer } = setup();
    server.queue({ status: 200, json: { sid: SID, friendly_name: 'ci', status: 'active' } });
    await deliverer.start!();
    expect(server.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([['GET', `/2010-04-01/Accounts/${SID}.json`, basic]]);
  });
});
