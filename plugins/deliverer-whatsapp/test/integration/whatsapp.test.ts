// Wire format from the WhatsApp Cloud API docs: send a text message and its answer
// (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages: {messaging_product, contacts,
// messages: [{id: "wamid..."}]}), error codes (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes:
// 130429 throughput, 131047 re-engagement, 131045 incorrect certificate, 133010 phone number not registered)
// and the pair rate limit (https://developers.facebook.com/docs/whatsapp/cloud-api/overview#pair-rate-limits).
import { deliverOptions, deliveryMessage, rejectionOf } from '@hookwise/testing';
import plugin, { whatsappPlatform } from '@hookwise/plugin-deliverer-whatsapp';
import { PHONE_ID, TOKEN, server, setup, useCloudApiStandIn } from './cloud-api-stand-in';

useCloudApiStandIn();

function graphError(code: number, message: string, extra: Record<string, unknown> = {}) {
  return { error: { message, type: 'OAuthException', code, fbtrace_id: 'AbCdEfGh123', ...extra } };
}

describe('whatsapp (WhatsApp Cloud API)', () => {
  it('contributes whatsapp (alias platform_06), which must be enabled, with api_version defaulting to v21.0', () => {
    expect(plugin.contributes).toEqual([whatsappPlatform]);
    expect([whatsappPlatform.id, whatsappPlatform.aliases]).toEqual(['whatsapp', ['platform_06']]);
    expect(whatsappPlatform.requiresEnabled).toBe(true);
    const schema = whatsappPlatform.optionsSchema as { properties: Record<string, { default?: unknown }>; required: string[] };
    expect([schema.properties.api_version.default, schema.properties.api_base.default]).toEqual(['v21.0', 'https://graph.facebook.com']);
    expect(schema.required).toEqual(['token', 'phone_number_id']);
  });

  it('POSTs a text message with a bearer token to /<version>/<phone_number_id>/messages', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(deliveryMessage('Build *failed*', { chat_id: '15557654321' }), deliverOptions());
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect([req.method, req.path]).toEqual(['POST', `/v21.0/${PHONE_ID}/messages`]);
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.json).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '15557654321',
      type: 'text',
      text: { body: 'Build *failed*' },
    });
    expect(receipt).toEqual({ target: '15557654321', ids: ['wamid.1'] });
  });

  it('sends to home_channel when the route gives no chat_id', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect((server.requests[0].json as { to: string }).to).toBe('15551230000');
  });

  it('splits answers longer than 4096 characters into ordered messages', async () => {
    const { deliverer } = setup();
    const text = Array.from({ length: 90 }, (_, i) => `line ${i} ${'x'.repeat(90)}`).join('\n');
    const receipt = await deliverer.deliver(deliveryMessage(text), deliverOptions());
    const bodies = server.requests.map((r) => (r.json as { text: { body: string } }).text.body);
    expect(bodies.length).toBe(3);
    for (const b of bodies) expect(b.length).toBeLessThanOrEqual(4096);
    expect(bodies.join('\n')).toBe(text);
    expect(receipt.ids).toEqual(['wamid.1', 'wamid.2', 'wamid.3']);
  });

  it('spaces the parts to one person at the pair rate limit (one per 6 seconds)', async () => {
    const { deliverer, clock } = setup();
    await deliverer.deliver(deliveryMessage(Array.from({ length: 90 }, (_, i) => `line ${i} ${'x'.repeat(90)}`).join('\n')), deliverOptions());
    expect(clock.waits).toEqual([6000, 6000]);
  });

  it('sends digits only: a leading + of chat_id is dropped', async () => {
    const { deliverer } = setup();
    await deliverer.deliver(deliveryMessage('hi', { chat_id: '+15557654321' }), deliverOptions());
    expect((server.requests[0].json as { to: string }).to).toBe('15557654321');
  });

  it.each(['..', '1555', '+1 555 765 4321', '15557654321,15550000000', 'wa.me/15557654321'])('refuses recipient %j before sending', async (to) => {
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: to }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [131045, '(#131045) Incorrect certificate', 'registration problem'],
    [133010, '(#133010) Phone number Not Registered', 'not registered on the WhatsApp Business Platform'],
  ])('reports error %i as a configuration problem of the business number, not retried', async (code, message, says) => {
    const { deliverer } = setup();
    server.queue({ status: 400, json: graphError(code, message, { type: 'OAuthException', error_data: { messaging_product: 'whatsapp', details: message } }) });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_CONFIG', false]);
    expect(err.message).toContain(says);
  });

  it('needs messages[0].id to count a part as sent', async () => {
    const { deliverer } = setup();
    server.queue({ status: 200, json: { messaging_product: 'whatsapp', contacts: [], messages: [] } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
    expect(err.message).toContain('messages[0].id');
  });

  it('retries a throughput limit (error 130429) after the hinted wait', async () => {
    const { deliverer, logs } = setup();
    server.queue({ status: 400, json: graphError(130429, '(#130429) Rate limit hit') });
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions());
    expect(server.requests).toHaveLength(2);
    expect(logs.join('\n')).toContain('rate limited; waiting 1s');
  });

  it('hands a business-account rate limit (error 80007) back to the worker as retryable', async () => {
    const { deliverer } = setup();
    server.queue({ status: 400, json: graphError(80007, '(#80007) Rate limit issues') });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', true]);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry an expired token (HTTP 401, error 190) and never shows the token', async () => {
    const { deliverer, logs, redacted } = setup();
    server.queue({ status: 401, json: graphError(190, `Error validating access token: Session has expired (token ${TOKEN})`, { error_subcode: 463 }) });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message).toContain('error 190/463');
    expect(err.message).toContain('platforms.whatsapp.token');
    expect(server.requests).toHaveLength(1);
    expect(err.message + logs.join('\n')).not.toContain(TOKEN);
    expect(redacted).toContain(TOKEN);
  });

  it('explains the 24-hour customer-service window on error 131047 and does not retry', async () => {
    const { deliverer } = setup();
    server.queue({
      status: 400,
      json: graphError(131047, '(#131047) Re-engagement message', {
        error_data: {
          messaging_product: 'whatsapp',
          details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
        },
      }),
    });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
    expect(err.message).toContain('Re-engagement message');
    expect(err.message).toContain('customer-service window');
    expect(err.message).toContain('template');
    expect(server.requests).toHaveLength(1);
  });

  it('reports a recipient outside the allowed list (error 131030) as a bad target', async () => {
    const { deliverer } = setup();
    server.queue({ status: 400, json: graphError(131030, '(#131030) Recipient phone number not in allowed list') });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
  });

  it('start() reads the phone number with the bearer token', async () => {
    const { deliverer, logs } = setup();
    server.queue({ status: 200, json: { verified_name: 'Hookwise CI', display_phone_number: '+1 555-123-0000', id: PHONE_ID } });
    await deliverer.start!();
    const [req] = server.requests;
    expect([req.method, req.path, req.query.get('fields'), req.headers.authorization]).toEqual([
      'GET',
      `/v21.0/${PHONE_ID}`,
      'verified_name,display_phone_number',
      `Bearer ${TOKEN}`,
    ]);
    expect(logs.join('\n')).toContain('sending as Hookwise CI');
  });
});
