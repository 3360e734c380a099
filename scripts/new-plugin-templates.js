// The files of a new plugin that differ per kind (its main source file, its test or contract inputs, the README's
// configuration snippet), for scripts/new-plugin.js, which writes them in the one plugin layout.
'use strict';

const pascal = (name) => name.replace(/(^|-)([a-z0-9])/g, (_, _dash, c) => c.toUpperCase());
const camel = (name) => pascal(name).replace(/^./, (c) => c.toLowerCase());

/** What differs per kind: the contribution's source file, its test, and the README's configuration snippet. */
function kindTemplates(kind, names) {
  const { id, Name, name, header, env } = names;
  switch (kind) {
    case 'deliverer':
      return {
        usesKit: true,
        description: `Delivers agent answers to ${Name}: deliver: ${id}.`,
        contribution: `${camel(name)}Platform`,
        // The README's row of docs/platforms.md (scripts/platforms-doc.js).
        glance: `| ${Name} | a channel id: letters, digits, \`-\` and \`_\` | 10 | none |`,
        source: `// ${id}: ${Name}'s API: one POST of JSON per part of the answer, the token as a bearer. Replace the request, the
// success answer and the target format with what ${Name} documents; the kit does the rest as for every platform
// (chunking, retries honouring Retry-After, pacing, receipts, secrets kept out of logs).
import { definePlatform, joinUrl, platformOptionsSchema, type PlatformOptions } from '@hookwise/kit/platform';

export interface ${Name}Options extends PlatformOptions {
  api_base: string;
  token: string;
}

/** The longest message ${Name} takes, in characters: longer answers are split. */
export const MESSAGE_LIMIT = 4000;

export const ${camel(name)}Platform = definePlatform<${Name}Options>({
  id: '${id}',
  title: '${Name}',
  description: 'Posts answers to a ${Name} channel.',
  limit: MESSAGE_LIMIT,
  maxParts: 10,
  targets: {
    format: 'a channel id: letters, digits, - and _',
    check: (target) => (/^[\\w-]+$/.test(target) ? undefined : 'it is not a channel id'),
  },
  optionsSchema: platformOptionsSchema({
    properties: { token: { type: 'string', minLength: 8, description: 'API token (use \${${env}_TOKEN} and .env).' } },
    required: ['token'],
  }),
  secrets: (o) => [o.token],
  credentialsHint: 'check platforms.${id}.token',
  request: (chunk, o) => ({ method: 'POST', url: joinUrl(o.api_base, '/api/messages'), bearer: o.token, json: { channel: chunk.target, text: chunk.text } }),
  success: { describe: 'the created message with its id', test: (res) => typeof (res.json as { id?: unknown } | undefined)?.id === 'string' },
  messageId: (res) => (res.json as { id?: string } | undefined)?.id,
});
`,
        scenarios: `// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for ${Name}'s API.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { ${camel(name)}Platform } from '../src';

const TOKEN = '${id}-contract-token-0123456789';

export default delivererContractCase(
  '${id}',
  ({ server, test }) => ${camel(name)}Platform.create({ api_base: server.url, token: TOKEN, home_channel: 'ops', timeout_seconds: 5 }, test.ctx) as Deliverer,
  {
    secrets: [TOKEN],
    api: (_req, scenario) =>
      scenario === 'deliver' ? { status: 201, json: { id: 'm-1' } } : scenario === 'retryable' ? { status: 503, json: {} } : { status: 400, json: {} },
  },
);
`,
        test: `// ${id} against a recording stand-in for ${Name}'s API: the exact request an answer becomes, and what is refused.
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import plugin, { ${camel(name)}Platform } from '../../src';

const TOKEN = '${id}-test-token-0123456789';

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer(() => ({ status: 201, json: { id: 'm-1' } }));
});
afterEach(() => server.close());

const deliverer = () =>
  ${camel(name)}Platform.createDeliverer({ api_base: server.url, token: TOKEN, home_channel: 'ops', timeout_seconds: 5 }, createTestPluginContext().ctx);

describe('${id} (${Name})', () => {
  it('posts the answer as JSON to /api/messages with the token as a bearer, and keeps the message id', async () => {
    const receipt = await deliverer().deliver(deliveryMessage('The build is green.'), deliverOptions());
    const seen = server.requests.map((r) => ({ method: r.method, path: r.path, authorization: r.headers.authorization, json: r.json }));
    expect(seen).toEqual([{ method: 'POST', path: '/api/messages', authorization: \`Bearer \${TOKEN}\`, json: { channel: 'ops', text: 'The build is green.' } }]);
    expect(receipt).toMatchObject({ target: 'ops', ids: ['m-1'] });
  });

  it('refuses a chat_id that is no channel id, before sending anything', async () => {
    const err = await rejectionOf(deliverer().deliver(deliveryMessage('a', { chat_id: '../users' }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(server.requests).toHaveLength(0);
  });

  it('contributes ${id}, which must be enabled', () => {
    expect(plugin.contributes).toEqual([${camel(name)}Platform]);
    expect(${camel(name)}Platform.requiresEnabled).toBe(true);
  });
});
`,
        config: `platforms:
  ${id}:
    enabled: true
    api_base: https://${name}.example.invalid
    token: \${${env}_TOKEN}
    home_channel: ops
  webhook:
    extra:
      routes:
        ci:
          deliver: ${id}`,
      };
    case 'agent':
      return {
        usesKit: true,
        description: `Runs the agent on ${Name}.`,
        source: `// ${id}: asks a model server over HTTP: POSTs the prompt and the skills as JSON and answers with the reply's
// \`text\`. Replace the request and the reply with what ${Name} speaks.
import { HookwiseError, errorMessage, type AgentContribution, type AgentRunner, type PluginContext } from '@hookwise/core';
import { retryAfterFromHeaders } from '@hookwise/kit';

export interface ${Name}Options {
  url: string;
  /** The environment variable holding the API key (never the key itself in config.yaml). */
  api_key_env: string;
  timeout_seconds: number;
}

const ID = '${id}';

export function create${Name}Runner(options: ${Name}Options, ctx: PluginContext): AgentRunner {
  const apiKey = ctx.env[options.api_key_env];
  ctx.redact(apiKey);
  return {
    async run(task, { signal }) {
      // Shutdown or the gateway's timeout: the job is tried again later.
      const stopped = () => new HookwiseError('HW_E_AGENT', \`\${ID}: stopped (\${errorMessage(signal.reason ?? 'aborted')})\`, { retryable: true });
      if (signal.aborted) throw stopped();
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
      if (apiKey) headers.authorization = \`Bearer \${apiKey}\`;
      const body = JSON.stringify({ prompt: task.prompt, skills: task.skills.map((s) => ({ name: s.name, body: s.body })) });
      let res: Response;
      try {
        res = await fetch(options.url, { method: 'POST', headers, body, signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeout_seconds * 1000)]) });
      } catch (err) {
        if (signal.aborted) throw stopped();
        const what = err instanceof Error && err.name === 'TimeoutError' ? \`no answer within timeout_seconds (\${options.timeout_seconds}s)\` : \`cannot reach \${options.url}: \${errorMessage(err)}\`;
        throw new HookwiseError('HW_E_AGENT', \`\${ID}: \${what}\`, { retryable: true });
      }
      const reply = (await res.json().catch(() => undefined)) as { text?: unknown } | undefined;
      if (res.ok && typeof reply?.text === 'string') return { text: reply.text };
      // Throttling and server errors may clear; anything else (bad key, bad request) will not by waiting.
      const retryable = res.status === 429 || res.status >= 500;
      const hint = res.status === 401 || res.status === 403 ? \`; check the key in \${options.api_key_env}\` : '';
      throw new HookwiseError('HW_E_AGENT', \`\${ID}: \${options.url} answered \${res.status}\${res.ok ? ' without a text field' : ''}\${hint}\`, {
        retryable,
        retryAfterSeconds: retryAfterFromHeaders(res.headers),
      });
    },
  };
}

export const ${camel(name)}Runner: AgentContribution<${Name}Options> = {
  kind: 'agent',
  id: ID,
  description: 'Asks ${Name} over HTTP.',
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: { type: 'string', pattern: '^https?://', description: 'Where the prompt is posted.' },
      api_key_env: { type: 'string', default: '${env}_API_KEY', description: 'Environment variable holding the API key.' },
      timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 3600, default: 120, description: 'Longest one request may take.' },
    },
  },
  create: create${Name}Runner,
};
`,
        scenarios: `// The agent runner contract's inputs (run by the first-party contracts test) against a local stand-in for ${Name}.
import { agentRunnerContractCase } from '@hookwise/testing';
import { create${Name}Runner } from '../src';

const KEY = '${id}-contract-key-0123456789';

export default agentRunnerContractCase('${id}', ({ server, test }) => create${Name}Runner({ url: server.url, api_key_env: 'KEY', timeout_seconds: 5 }, { ...test.ctx, env: { KEY } }), {
  secrets: [KEY],
  // 'hang' is left unanswered: only the AbortSignal can end that run.
  api: (_req, scenario) => (scenario === 'answer' ? { json: { text: 'The build is green.' } } : scenario === 'fail' ? { status: 500, json: { error: 'overloaded' } } : undefined),
});
`,
        config: `agent:
  runner: ${id}
  url: https://example.invalid/v1/answer
  api_key_env: ${env}_API_KEY`,
      };
    case 'source':
      return {
        usesKit: true,
        description: `Receives ${Name} webhooks.`,
        source: `// ${id}: ${Name}'s webhooks: a hex HMAC-SHA256 of the body in X-${Name}-Signature, the event type in X-${Name}-Event,
// the delivery id in X-${Name}-Delivery. Replace the header names and the scheme with ${Name}'s documented ones.
import { defineSource, field, openObject, verifyHexHmac } from '@hookwise/kit/source';

export const SIGNATURE_HEADER = 'x-${header}-signature';

export const ${camel(name)}Source = defineSource({
  id: '${id}',
  description: '${Name}: X-${Name}-Signature (HMAC-SHA256 hex of the body), X-${Name}-Event, X-${Name}-Delivery',
  // What ${Name} posts, from its docs (MCP Events' payloadSchema; test/payload-samples.ts must validate): a placeholder.
  payloadSchema: {
    envelope: openObject({
      description: 'A ${Name} webhook payload.',
      docs: 'https://example.invalid/${id}/webhooks',
      properties: { action: field('string') },
    }),
  },
  style: () => ({
    headers: [SIGNATURE_HEADER],
    verify: (req, secrets) => verifyHexHmac(req.headers, SIGNATURE_HEADER, req.rawBody, secrets),
    eventType: 'x-${header}-event',
    deliveryId: 'x-${header}-delivery',
  }),
});
`,
        test: `// The ${id} source: signatures against each of a route's secrets, event type and delivery id.
import { createHmac } from 'node:crypto';
import type { SourceRequest } from '@hookwise/core';
import { ${camel(name)}Source } from '../../src';

const body = Buffer.from('{"action":"opened"}');
const request = (headers: Record<string, string>): SourceRequest => ({ headers, rawBody: body, url: 'http://localhost/webhooks/r', receivedAt: Date.now() });
const sign = (secret: string) => createHmac('sha256', secret).update(body).digest('hex');

describe('${id} source', () => {
  const secrets = ['${id}-new-secret-0123456789', '${id}-old-secret-0123456789'];

  it('accepts a body signed with any of the route secrets and says which one matched', () => {
    const source = ${camel(name)}Source.create();
    expect(source.verify(request({ 'x-${header}-signature': sign(secrets[0]) }), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(request({ 'x-${header}-signature': sign(secrets[1]) }), secrets)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses another secret, and tells a missing signature apart', () => {
    const source = ${camel(name)}Source.create();
    expect(source.verify(request({ 'x-${header}-signature': sign('another-secret-0123456789') }), secrets)).toMatchObject({ ok: false });
    expect(source.verify(request({}), secrets)).toMatchObject({ ok: false, missing: true });
  });

  it('reads the event type and the delivery id from their headers', () => {
    const source = ${camel(name)}Source.create();
    const req = request({ 'x-${header}-event': 'item.created', 'x-${header}-delivery': 'd-42' });
    expect(source.eventType?.(req, {})).toBe('item.created');
    expect(source.deliveryId?.(req, {})).toBe('d-42');
  });
});
`,
        samples: `// Payloads copied from ${Name}'s docs, which its payload schema must accept (the first-party contracts test).
import type { PayloadSample } from '@hookwise/testing';

const samples: PayloadSample[] = [{ name: 'item.created', event: 'item.created', body: '{"action":"opened"}' }];
export default samples;
`,
        config: `platforms:
  webhook:
    extra:
      routes:
        ${id}-events:
          source: ${id}
          secrets: [\${${env}_WEBHOOK_SECRET}]
          prompt: "Summarise {action}"`,
      };
    case 'store':
      return {
        usesKit: false,
        description: `Keeps Hookwise's jobs, delivery ids and rate windows in ${Name}.`,
        source: `// ${id}: a store backend (\`store.backend: ${id}\`). A store keeps the delivery ids, the rate windows and the jobs
// (core's Store interface); openStore() must return one that passes describeStoreContract (test/unit).
import { HookwiseError, type Store, type StoreConfig, type StoreContribution } from '@hookwise/core';

export interface ${Name}StoreConfig extends StoreConfig {
  url?: string;
}

export async function open${Name}Store(config: ${Name}StoreConfig): Promise<Store> {
  // Written when the backend is: connect to config.url and implement deliveryIds, rateLimiter and jobs (see
  // packages/store-sqlite for a complete one). Until then the gateway refuses to start with this message.
  throw new HookwiseError('HW_E_STORE', \`store.backend ${id}: open${Name}Store is still the generated skeleton (\${config.url ?? 'no store.url'}); implement open${Name}Store in plugins/store-${name}/src\`);
}

export const ${camel(name)}Store: StoreContribution<${Name}StoreConfig> = {
  kind: 'store',
  id: '${id}',
  description: 'Keeps the jobs, delivery ids and rate windows in ${Name}.',
  // The keys of \`store:\` that are this backend's own; the gateway checks backend, max_pending and lease_seconds.
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { url: { type: 'string', minLength: 1, description: 'Where ${Name} is reached.' } },
  },
  create: (options) => open${Name}Store(options),
};
`,
        test: `// The store contract from @hookwise/testing (what \`store.backend: ${id}\` needs).
import { open${Name}Store } from '../../src';

// Until open${Name}Store returns a store it refuses with what to do; once it does, replace this test with
//   describeStoreContract('${id}', () => open${Name}Store({ backend: '${id}', max_pending: 10_000 }));
// and make every case of the contract pass.
it('refuses to open until the backend is written, saying what to implement', async () => {
  await expect(open${Name}Store({ backend: '${id}', max_pending: 10_000 })).rejects.toThrow(/implement open${Name}Store/);
});
`,
        config: `store:
  backend: ${id}
  url: \${${env}_URL}`,
      };
    default:
      throw new Error(`unknown kind '${kind}'`);
  }
}

module.exports = { camel, kindTemplates, pascal };
