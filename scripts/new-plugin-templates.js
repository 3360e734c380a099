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
        description: `Delivers the agent's answer to ${Name}.`,
        source: `// ${id}: posts the agent's answer as JSON to the configured URL. Replace the request and the answer check with
// what ${Name}'s API expects; the kit keeps timeouts, cancellation, error codes and secret scrubbing the same as
// every other deliverer.
import { HookwiseError, SecretScrubber, type Deliverer, type DelivererContribution, type PluginContext } from '@hookwise/core';
import { classifyHttpStatus, describeRequest, failureToError, sendHttp, type HttpRequest } from '@hookwise/kit/platform';

export interface ${Name}Options {
  url: string;
  token?: string;
  timeout_seconds: number;
}

const ID = '${id}';

export function create${Name}Deliverer(options: ${Name}Options, ctx: PluginContext): Deliverer {
  // Registered so that no log line or error message ever carries it.
  ctx.redact(options.token);
  const scrubber = new SecretScrubber([options.token]);
  return {
    async deliver(msg, { signal }) {
      if (!msg.text.trim()) throw new HookwiseError('HW_E_DELIVERY', \`\${ID}: the agent's answer is empty; nothing to send\`, { retryable: false });
      const req: HttpRequest = { url: options.url, json: { text: msg.text, route: msg.route, event: msg.event, delivery_id: msg.deliveryId }, bearer: options.token };
      const res = await sendHttp(req, { signal, timeoutMs: options.timeout_seconds * 1000, scrubber, label: ID });
      const failure = classifyHttpStatus(res);
      if (failure) throw failureToError(failure, { label: ID, credentialsHint: \`check platforms.\${ID}.token\`, where: describeRequest(req, scrubber) });
      return { target: new URL(options.url).host };
    },
  };
}

export const ${camel(name)}Deliverer: DelivererContribution<${Name}Options> = {
  kind: 'deliverer',
  id: ID,
  description: "Posts the agent's answer to ${Name}.",
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      enabled: { type: 'boolean' },
      url: { type: 'string', pattern: '^https?://', description: 'Where the answer is posted.' },
      token: { type: 'string', minLength: 1, description: 'Sent as a bearer token (use \${${env}_TOKEN} and .env).' },
      timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 600, default: 30, description: 'Longest one request may take.' },
    },
  },
  create: create${Name}Deliverer,
};
`,
        scenarios: `// The deliverer contract's inputs (run by the first-party contracts test) against a local stand-in for ${Name}'s API.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { create${Name}Deliverer } from '../src';

const TOKEN = '${id}-contract-token-0123456789';

export default delivererContractCase('${id}', ({ server, test }) => create${Name}Deliverer({ url: server.url, token: TOKEN, timeout_seconds: 5 }, test.ctx) as Deliverer, {
  secrets: [TOKEN],
});
`,
        config: `platforms:
  ${id}:
    url: https://example.invalid/hooks/answers
    token: \${${env}_TOKEN}
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
import { defineSource, verifyHexHmac } from '@hookwise/kit/source';

export const SIGNATURE_HEADER = 'x-${header}-signature';

export const ${camel(name)}Source = defineSource({
  id: '${id}',
  description: '${Name}: X-${Name}-Signature (HMAC-SHA256 hex of the body), X-${Name}-Event, X-${Name}-Delivery',
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
