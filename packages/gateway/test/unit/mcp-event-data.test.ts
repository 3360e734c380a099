// What of a payload leaves through MCP Events (mcp-events/event-data.ts): the route's private fields taken out by
// path (list elements by index, `*` for every key or element) without changing the stored payload, the
// payloadSchema that names them (a valid JSON Schema that refuses them), and the route key's validation.
import Ajv2020 from 'ajv/dist/2020';
import { payloadSchemaOf, withheld } from '../../src/mcp-events/event-data';
import { validateConfig } from '../../src/generated/config-validator';
import { validateSubscriptionEntry } from '../../src/generated/subscription-validator';

describe('withheld', () => {
  const payload = () => ({
    user: { login: 'octo', email: 'o@example.com' },
    commits: [{ author: { name: 'a', email: 'a@example.com' } }, { author: { name: 'b', email: 'b@example.com' } }],
    labels: ['keep', 'drop'],
    map: { x: { secret: 1, keep: 2 }, y: { secret: 3 } },
  });

  it('takes out object keys, list elements by index and every key or element with *, leaving the input as it was', () => {
    const input = payload();
    const out = withheld(input, ['user.email', 'commits.*.author.email', 'labels.1', 'map.*.secret']);
    expect(out).toEqual({
      user: { login: 'octo' },
      commits: [{ author: { name: 'a' } }, { author: { name: 'b' } }],
      labels: ['keep'],
      map: { x: { keep: 2 }, y: {} },
    });
    expect(input).toEqual(payload());
    expect(withheld(input, ['commits.0', 'nothing.here', 'user.login.deeper'])).toMatchObject({ commits: [{ author: { name: 'b' } }], user: input.user });
    expect(withheld(input, ['*'])).toEqual({});
  });

  it('keeps a payload’s own __proto__ key a key (never a prototype) and can withhold it', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "a": {"__proto__": 1, "b": 2}}') as Record<string, unknown>;
    const kept = withheld(input, ['a.b']) as Record<string, unknown>;
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(kept, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(withheld(input, ['__proto__']) as object)).toEqual(['a']);
  });
});

describe('payloadSchemaOf', () => {
  it('is any object without private fields, and otherwise a valid schema that names and refuses each one', () => {
    expect(payloadSchemaOf(undefined)).toEqual({ type: 'object', additionalProperties: true });
    const fields = ['user.email', 'commits.*.author.email', 'internal'];
    const schema = payloadSchemaOf({ mcpPrivateFields: fields });
    for (const path of fields) expect(schema.description).toContain(path);
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate({ user: { login: 'o' }, commits: [{ author: { name: 'a' } }] })).toBe(true);
    expect(validate({ user: { email: 'o@example.com' } })).toBe(false);
    expect(validate({ internal: {} })).toBe(false);
    expect(validate({ commits: [{ author: { email: 'a@example.com' } }] })).toBe(false);
  });
});

describe('mcp_private_fields in the route schema', () => {
  const config = (fields: unknown) => ({ platforms: { webhook: { extra: { routes: { prs: { mcp_private_fields: fields } } } } } });

  it('takes dot paths on a config route and a subscription entry, and refuses empty steps', () => {
    expect(validateConfig(config(['user.email', 'commits.*.author.email']))).toBe(true);
    expect(validateSubscriptionEntry({ mcp_private_fields: ['user.email'] })).toBe(true);
    for (const bad of [['user..email'], ['.user'], [''], 'user.email']) expect(validateConfig(config(bad))).toBe(false);
    expect(validateSubscriptionEntry({ mcp_private_fields: ['user.'] })).toBe(false);
  });
});

describe("payloadSchemaOf on a source's schema", () => {
  const base = {
    type: 'object',
    description: 'A sender event.',
    properties: { sender: { type: 'object' }, pull_request: { type: 'object', properties: { user: { type: 'object' } }, required: ['user'] } },
    required: ['sender', 'pull_request'],
    additionalProperties: true,
  };

  it('is the schema itself without private fields, and without `base` the generic object', () => {
    expect(payloadSchemaOf({}, base)).toBe(base);
    expect(payloadSchemaOf({})).toEqual({ type: 'object', additionalProperties: true });
  });

  it('marks a copy: withheld paths false and no longer required, the description kept; the source schema unchanged', () => {
    const before = JSON.stringify(base);
    const schema = payloadSchemaOf({ mcpPrivateFields: ['sender', 'pull_request.user', 'pull_request.labels.*'] }, base);
    expect(JSON.stringify(base)).toBe(before);
    expect(schema.description).toMatch(/^A sender event\. The payload as the route stored it.*sender, pull_request\.user/);
    expect(schema.required).toEqual(['pull_request']);
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate({ pull_request: { labels: [] } })).toBe(true);
    expect(validate({ pull_request: {}, sender: {} })).toBe(false);
    expect(validate({ pull_request: { user: {} } })).toBe(false);
    expect(validate({ pull_request: { labels: ['bug'] } })).toBe(false);
  });
});
