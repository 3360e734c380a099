import type { Deliverer } from '@hookwise/core';
import { definePlatform, joinUrl, platformOptionsSchema, type HttpResponse, type PlatformOptions, type ResponseVerdict } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';

// A made-up API with client-chosen message keys: it answers 409 {duplicate: true} for a key it already has.
interface Options extends PlatformOptions {
  api_base: string;
  key: string;
}
const KEY = 'key-s3cret-0123';
const TWO_PARTS = `${'first '.repeat(12)}\n\n${'second '.repeat(12)}`;

function checkDuplicate(res: HttpResponse): ResponseVerdict | undefined {
  const body = res.json as { duplicate?: boolean; id?: string; said?: string } | undefined;
  if (res.status === 409 && body?.duplicate) return { kind: 'already_delivered', message: `HTTP 409: ${body.said ?? 'duplicate'}`, messageId: body.id };
  return undefined;
}

const common = {
  title: 'Keyed',
  limit: 100,
  maxParts: 20,
  optionsSchema: platformOptionsSchema({ properties: { key: { type: 'string' } }, required: ['key'] }),
  secrets: (o: Options) => [o.key],
  credentialsHint: 'check platforms.platform_97.key',
  checkResponse: checkDuplicate,
};

const viaRequest = definePlatform<Options>({
  ...common,
  id: 'platform_97',
  success: { describe: 'an id', test: (res: HttpResponse) => typeof (res.json as { id?: unknown }).id === 'string' },
  request: (chunk, o) => ({
    method: 'POST',
    url: joinUrl(o.api_base, 'send', { key: o.key }),
    json: { to: chunk.target, part: chunk.index, text: chunk.text },
  }),
  // Reads only success bodies; must not be asked about a duplicate answer.
  messageId: (res) => {
    const id = (res.json as { id?: string }).id;
    if (!id) throw new Error('messageId() was called on an answer without an id');
    return id;
  },
});

const viaSend = definePlatform<Options>({
  ...common,
  id: 'platform_96',
  async send(chunk, { call, options }) {
    const res = await call({
      method: 'POST',
      url: joinUrl(options.api_base, 'send', { key: options.key }),
      json: { to: chunk.target, part: chunk.index, text: chunk.text },
    });
    return res.alreadyDelivered ? undefined : (res.json as { id: string }).id;
  },
});

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer((req, index) => ({ json: { id: `m-${index + 1}` } }));
});
afterEach(() => server.close());

function create(def: typeof viaRequest) {
  const test = createTestPluginContext();
  return { ...test, deliverer: def.create({ api_base: server.url, key: KEY, home_channel: 'u1' }, test.ctx) as Deliverer };
}

function sentParts(): Array<[string, unknown]> {
  return server.requests.map((r) => [r.url, r.json]);
}

describe('checkResponse: already_delivered', () => {
  it('counts a part the platform already has as sent, takes the id the check read, and notes it in the receipt', async () => {
    const { deliverer, logs } = create(viaRequest);
    server.queue({ status: 409, json: { duplicate: true, id: 'm-old', said: `key seen before (${KEY})` } });
    const receipt = await deliverer.deliver(deliveryMessage(TWO_PARTS), deliverOptions(2));
    expect(receipt).toEqual({ target: 'u1', ids: ['m-old', 'm-2'], alreadyDelivered: [{ index: 0, message: 'HTTP 409: key seen before ([REDACTED])' }] });
    const url = `/send?key=${encodeURIComponent(KEY)}`;
    expect(sentParts()).toEqual([
      [url, { to: 'u1', part: 0, text: 'first '.repeat(12).trim() }],
      [url, { to: 'u1', part: 1, text: 'second '.repeat(12).trim() }],
    ]);
    const line = logs.find((l) => l.includes('already delivered'));
    expect(line).toContain('part 1/2 of delivery-1 to u1 was already delivered');
    expect(logs.join('\n')).not.toContain(KEY);
  });

  it('leaves the receipt ids without an entry when the duplicate answer names no id', async () => {
    const { deliverer } = create(viaRequest);
    server.queue({ status: 409, json: { duplicate: true } });
    expect(await deliverer.deliver(deliveryMessage('one part'), deliverOptions(2))).toEqual({
      target: 'u1',
      ids: [],
      alreadyDelivered: [{ index: 0, message: 'HTTP 409: duplicate' }],
    });
    expect(server.requests).toHaveLength(1);
  });

  it('keeps the note when a later part fails and the retried job resumes after it', async () => {
    const { deliverer } = create(viaRequest);
    server.queue({ status: 409, json: { duplicate: true, id: 'm-old' } }, { status: 503, json: { error: 'busy' } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage(TWO_PARTS), deliverOptions(2)));
    expect(err.retryable).toBe(true);
    const receipt = await deliverer.deliver(deliveryMessage(TWO_PARTS), deliverOptions(3));
    expect(receipt).toEqual({ target: 'u1', ids: ['m-old', 'm-3'], alreadyDelivered: [{ index: 0, message: 'HTTP 409: duplicate' }] });
    expect(sentParts().map(([, json]) => (json as { part: number }).part)).toEqual([0, 1, 1]);
  });

  it('reports it to send() hooks on the response and in the receipt', async () => {
    const { deliverer } = create(viaSend);
    server.queue({ status: 409, json: { duplicate: true, id: 'm-old' } });
    expect(await deliverer.deliver(deliveryMessage('one part'), deliverOptions(2))).toEqual({
      target: 'u1',
      ids: ['m-old'],
      alreadyDelivered: [{ index: 0, message: 'HTTP 409: duplicate' }],
    });
  });

  it('adds nothing to the receipt of an ordinary delivery, and other 409s still fail', async () => {
    const { deliverer } = create(viaRequest);
    expect(await deliverer.deliver(deliveryMessage('one part'), deliverOptions())).toEqual({ target: 'u1', ids: ['m-1'] });
    server.queue({ status: 409, json: { duplicate: false } });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('one part', {}, 'delivery-2'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', false]);
  });
});
