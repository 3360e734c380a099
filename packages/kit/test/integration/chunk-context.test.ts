import type { Deliverer } from '@hookwise/core';
import { definePlatform, deliveryKey, platformOptionsSchema, renderChunkTemplate, type OutgoingChunk, type PlatformOptions } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions } from '@hookwise/testing';

// What a plugin sees of the message besides the text, and the schema of a platform without an HTTP API.
describe('OutgoingChunk context', () => {
  it('carries the route and event type of the webhook to request()/send()', async () => {
    const seen: OutgoingChunk[] = [];
    const platform = definePlatform<PlatformOptions>({
      id: 'platform_98',
      title: 'Recorder',
      limit: 100,
      maxParts: 20,
      optionsSchema: platformOptionsSchema({ properties: {}, apiBase: null }),
      secrets: () => [],
      credentialsHint: 'none',
      send: async (chunk) => {
        seen.push(chunk);
        return `m${chunk.index}`;
      },
    });
    const d = platform.create({ home_channel: 'h' }, createTestPluginContext().ctx) as Deliverer;
    await d.deliver({ text: 'hello', route: 'ci', event: 'push', deliveryId: 'd-1', extra: {} }, deliverOptions());
    expect(seen).toEqual([
      { text: 'hello', index: 0, count: 1, target: 'h', extra: {}, deliveryId: 'd-1', route: 'ci', destination: 'platform_98', event: 'push' },
    ]);
  });
});

describe('platformOptionsSchema', () => {
  it('leaves api_base out entirely with apiBase: null (a platform without an HTTP API)', () => {
    const schema = platformOptionsSchema({ properties: { host: { type: 'string' } }, required: ['host'], apiBase: null }) as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(schema.properties)).toEqual(['enabled', 'home_channel', 'timeout_seconds', 'allowed_targets', 'max_parts', 'host']);
    expect(schema.required).toEqual(['host']);
  });

  it('keeps api_base required without a default and optional with one', () => {
    const required = platformOptionsSchema({ properties: {} }) as { required: string[]; properties: Record<string, { default?: string }> };
    const withDefault = platformOptionsSchema({ properties: {}, apiBase: 'https://api.example' }) as typeof required;
    expect(required.required).toEqual(['api_base']);
    expect([withDefault.required, withDefault.properties.api_base.default]).toEqual([[], 'https://api.example']);
  });
});

describe('deliveryKey', () => {
  it('is the same for the same chunk of the same delivery, and differs by route, delivery id and index', () => {
    const key = deliveryKey({ route: 'ci', deliveryId: 'd-1', index: 0 });
    expect(key).toMatch(/^[0-9a-f]{32}\.0$/);
    expect(deliveryKey({ route: 'ci', deliveryId: 'd-1', index: 0 })).toBe(key);
    expect(deliveryKey({ route: 'ci', deliveryId: 'd-1', index: 1 })).toBe(key.replace(/\.0$/, '.1'));
    expect(deliveryKey({ route: 'ci', deliveryId: 'd-2', index: 0 })).not.toBe(key);
    expect(deliveryKey({ route: 'cd', deliveryId: 'd-1', index: 0 })).not.toBe(key);
    expect(deliveryKey({ route: 'ci', deliveryId: 'd-1', index: 2 }, '-')).toBe(`${key.slice(0, 32)}-2`);
  });
});

describe('renderChunkTemplate', () => {
  const chunk = { route: 'ci', event: 'push', deliveryId: 'd-1', index: 0, count: 1 };
  it('fills {route}, {event} and {delivery_id} and leaves other placeholders as written', () => {
    expect(renderChunkTemplate('[{route}] {event} {delivery_id} {repo.name}', chunk)).toBe('[ci] push d-1 {repo.name}');
  });
  it('numbers the parts of a split answer', () => {
    expect(renderChunkTemplate('{route}', { ...chunk, index: 1, count: 3 })).toBe('ci (2/3)');
  });
});
