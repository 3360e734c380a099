#!/usr/bin/env node
// Creates a plugin package in plugins/<kind>-<name> and registers it everywhere a plugin must be registered
// (docs/writing-a-plugin.md, "Adding a plugin to this repository"): `npm run new:plugin -- <kind> <name>`.
'use strict';

const { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join, relative, sep } = require('node:path');

const KINDS = ['source', 'deliverer', 'agent', 'store'];
const USAGE = `usage: npm run new:plugin -- <${KINDS.join('|')}> <name> [--first-party] [--description "..."] [--root <repo>]

  <name>         lower-case words joined by '-' (e.g. acme-chat); the contribution id is acme_chat
  --first-party  also load it by default (the FIRST_PARTY_PLUGINS list) and make its package depend on it
  --root         the repository to write into (default: this one)`;

function parseArgs(argv) {
  const args = { positional: [], firstParty: false, description: undefined, root: join(__dirname, '..') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--first-party') args.firstParty = true;
    else if (arg === '--description') args.description = argv[++i];
    else if (arg === '--root') args.root = argv[++i];
    else if (arg === '-h' || arg === '--help') args.help = true;
    else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}\n${USAGE}`);
    else args.positional.push(arg);
  }
  return args;
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const writeJson = (file, value) => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
const pascal = (name) => name.replace(/(^|-)([a-z0-9])/g, (_, _dash, c) => c.toUpperCase());
const camel = (name) => pascal(name).replace(/^./, (c) => c.toLowerCase());

/** The plugin API the core in `root` provides: new plugins are written for it. */
function pluginApiVersion(root) {
  const match = /export const PLUGIN_API_VERSION = (\d+);/.exec(readFileSync(join(root, 'packages', 'core', 'src', 'plugin.ts'), 'utf8'));
  if (!match) throw new Error('cannot find PLUGIN_API_VERSION in packages/core/src/plugin.ts');
  return Number(match[1]);
}

/** The source file that declares FIRST_PARTY_PLUGINS, wherever the list lives now (packages/<x>/src). */
function firstPartyListFile(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && /export const FIRST_PARTY_PLUGINS\b/.test(readFileSync(path, 'utf8'))) files.push(path);
    }
  };
  for (const pkg of readdirSync(join(root, 'packages'))) if (existsSync(join(root, 'packages', pkg, 'src'))) walk(join(root, 'packages', pkg, 'src'));
  if (files.length !== 1) throw new Error(`expected one file declaring FIRST_PARTY_PLUGINS under packages/*/src, found ${files.length}`);
  return files[0];
}

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
import { HookwiseError, type Deliverer, type DelivererContribution, type PluginContext } from '@hookwise/core';
import { SecretScrubber, classifyHttpStatus, describeRequest, failureToError, sendHttp, type HttpRequest } from '@hookwise/kit';

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
        test: `// The deliverer contract from @hookwise/testing against a local stand-in for ${Name}'s API, and the package manifest.
import type { Deliverer } from '@hookwise/core';
import { describeDelivererContract, describePluginManifestContract, type PluginPackageJson } from '@hookwise/testing';
import { create${Name}Deliverer } from '../../src';

const TOKEN = '${id}-contract-token-0123456789';

describeDelivererContract('${id}', ({ server, test }) => create${Name}Deliverer({ url: server.url, token: TOKEN, timeout_seconds: 5 }, test.ctx) as Deliverer, {
  secrets: [TOKEN],
});

describePluginManifestContract(require('../../package.json') as PluginPackageJson, () => require('../../src'));
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
        test: `// The agent runner contract from @hookwise/testing against a local stand-in for ${Name}, and the package manifest.
import { describeAgentRunnerContract, describePluginManifestContract, type PluginPackageJson } from '@hookwise/testing';
import { create${Name}Runner } from '../../src';

const KEY = '${id}-contract-key-0123456789';

describeAgentRunnerContract('${id}', ({ server, test }) => create${Name}Runner({ url: server.url, api_key_env: 'KEY', timeout_seconds: 5 }, { ...test.ctx, env: { KEY } }), {
  secrets: [KEY],
  // 'hang' is left unanswered: only the AbortSignal can end that run.
  api: (_req, scenario) => (scenario === 'answer' ? { json: { text: 'The build is green.' } } : scenario === 'fail' ? { status: 500, json: { error: 'overloaded' } } : undefined),
});

describePluginManifestContract(require('../../package.json') as PluginPackageJson, () => require('../../src'));
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
import { headerValue, type Source, type SourceContribution } from '@hookwise/core';
import { verifyHexHmac } from '@hookwise/kit';

export const SIGNATURE_HEADER = 'x-${header}-signature';
export const EVENT_HEADER = 'x-${header}-event';
export const DELIVERY_HEADER = 'x-${header}-delivery';

export function create${Name}Source(): Source {
  return {
    headers: [SIGNATURE_HEADER],
    verify: (req, secrets) => verifyHexHmac(req.headers, SIGNATURE_HEADER, req.rawBody, secrets),
    eventType: (req) => headerValue(req.headers, EVENT_HEADER),
    deliveryId: (req) => headerValue(req.headers, DELIVERY_HEADER),
  };
}

export const ${camel(name)}Source: SourceContribution = {
  kind: 'source',
  id: '${id}',
  description: '${Name}: X-${Name}-Signature (HMAC-SHA256 hex of the body), X-${Name}-Event, X-${Name}-Delivery',
  optionsSchema: { type: 'object', additionalProperties: false, properties: {} },
  create: () => create${Name}Source(),
};
`,
        test: `// The ${id} source: signatures against each of a route's secrets, event type and delivery id; the package manifest.
import { createHmac } from 'node:crypto';
import type { SourceRequest } from '@hookwise/core';
import { describePluginManifestContract, type PluginPackageJson } from '@hookwise/testing';
import { create${Name}Source } from '../../src';

const body = Buffer.from('{"action":"opened"}');
const request = (headers: Record<string, string>): SourceRequest => ({ headers, rawBody: body, url: 'http://localhost/webhooks/r', receivedAt: Date.now() });
const sign = (secret: string) => createHmac('sha256', secret).update(body).digest('hex');

describe('${id} source', () => {
  const secrets = ['${id}-new-secret-0123456789', '${id}-old-secret-0123456789'];

  it('accepts a body signed with any of the route secrets and says which one matched', () => {
    const source = create${Name}Source();
    expect(source.verify(request({ 'x-${header}-signature': sign(secrets[0]) }), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(request({ 'x-${header}-signature': sign(secrets[1]) }), secrets)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses another secret, and tells a missing signature apart', () => {
    const source = create${Name}Source();
    expect(source.verify(request({ 'x-${header}-signature': sign('another-secret-0123456789') }), secrets)).toMatchObject({ ok: false });
    expect(source.verify(request({}), secrets)).toMatchObject({ ok: false, missing: true });
  });

  it('reads the event type and the delivery id from their headers', () => {
    const source = create${Name}Source();
    const req = request({ 'x-${header}-event': 'item.created', 'x-${header}-delivery': 'd-42' });
    expect(source.eventType?.(req, {})).toBe('item.created');
    expect(source.deliveryId?.(req, {})).toBe('d-42');
  });
});

describePluginManifestContract(require('../../package.json') as PluginPackageJson, () => require('../../src'));
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
        test: `// The store contract from @hookwise/testing (what \`store.backend: ${id}\` needs), and the package manifest.
import { describePluginManifestContract, type PluginPackageJson } from '@hookwise/testing';
import { open${Name}Store } from '../../src';

// Until open${Name}Store returns a store it refuses with what to do; once it does, replace this test with
//   describeStoreContract('${id}', () => open${Name}Store({ backend: '${id}', max_pending: 10_000 }));
// and make every case of the contract pass.
it('refuses to open until the backend is written, saying what to implement', async () => {
  await expect(open${Name}Store({ backend: '${id}', max_pending: 10_000 })).rejects.toThrow(/implement open${Name}Store/);
});

describePluginManifestContract(require('../../package.json') as PluginPackageJson, () => require('../../src'));
`,
        config: `store:
  backend: ${id}
  url: \${${env}_URL}`,
      };
    default:
      throw new Error(`unknown kind '${kind}'; one of ${KINDS.join(', ')}\n${USAGE}`);
  }
}

function generate(kind, name, options) {
  const root = options.root;
  if (!KINDS.includes(kind)) throw new Error(`unknown kind '${kind}'; one of ${KINDS.join(', ')}\n${USAGE}`);
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name))
    throw new Error(`'${name}' is not a plugin name: lower-case letters and digits, words joined by '-'\n${USAGE}`);
  const folder = `${kind}-${name}`;
  const dir = join(root, 'plugins', folder);
  if (existsSync(dir)) throw new Error(`${relative(root, dir)} exists already`);
  const names = { id: name.replace(/-/g, '_'), Name: pascal(name), name, header: name, env: name.replace(/-/g, '_').toUpperCase() };
  const packageName = `@hookwise/plugin-${folder}`;
  const t = kindTemplates(kind, names);
  const description = options.description ?? t.description;
  const coreVersion = readJson(join(root, 'packages', 'core', 'package.json')).version;
  const kitVersion = readJson(join(root, 'packages', 'kit', 'package.json')).version;
  const written = [];
  const write = (path, text) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    written.push(relative(root, path));
  };

  // The one place the plugin's name, version and plugin API live: definePlugin({ package }) reads them from here.
  const pkg = {
    name: packageName,
    version: '0.1.0',
    description,
    license: 'MIT',
    repository: { type: 'git', url: 'https://example.invalid/hookwise.git', directory: `plugins/${folder}` },
    main: 'dist/index.js',
    types: 'dist/index.d.ts',
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
    files: ['dist', '!dist/.tsbuildinfo', 'README.md', 'LICENSE'],
    engines: { node: '>=20' },
    keywords: ['hookwise', 'hookwise-plugin', kind, name],
    hookwise: { api: pluginApiVersion(root), contributes: [{ kind, id: names.id }] },
    peerDependencies: { '@hookwise/core': `^${coreVersion}` },
    devDependencies: { '@hookwise/core': coreVersion },
    ...(t.usesKit ? { dependencies: { '@hookwise/kit': kitVersion } } : {}),
  };
  mkdirSync(dir, { recursive: true });
  writeJson(join(dir, 'package.json'), pkg);
  written.push(relative(root, join(dir, 'package.json')));

  const references = [{ path: '../../packages/core' }, ...(t.usesKit ? [{ path: '../../packages/kit' }] : [])];
  write(
    join(dir, 'tsconfig.json'),
    `${JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { rootDir: 'src', outDir: 'dist', tsBuildInfoFile: 'dist/.tsbuildinfo' }, include: ['src'], references }, null, 2)}\n`,
  );
  const contributionName = `${camel(name)}${pascal(kind === 'agent' ? 'runner' : kind)}`;
  write(join(dir, 'src', 'index.ts'), `// ${packageName}: ${description}\nexport { default } from './plugin';\nexport * from './${name}';\n`);
  write(
    join(dir, 'src', 'plugin.ts'),
    `// The plugin object the gateway loads; its name, version and plugin API come from package.json.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { ${contributionName} } from './${name}';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [${contributionName}] });
`,
  );
  write(join(dir, 'src', `${name}.ts`), t.source);
  write(join(dir, 'test', 'unit', `${name}.test.ts`), t.test);
  write(
    join(dir, 'README.md'),
    `# ${packageName}

${description} Contributes the \`${kind}\` \`${names.id}\`${options.firstParty ? ', loaded by default' : `; load it with \`plugins: ['${packageName}']\``}.

## Configuration

\`\`\`yaml
${t.config}
\`\`\`

## Development

\`\`\`sh
npm run build                       # tsc -b, this package included
npx jest plugins/${folder}
\`\`\`

The tests run the contract from \`@hookwise/testing\` and check that the \`hookwise\` field of package.json lists
what the plugin contributes.
`,
  );
  write(join(dir, 'LICENSE'), readFileSync(join(root, 'LICENSE'), 'utf8'));

  // The root build: tsc -b follows the references.
  const tsconfigFile = join(root, 'tsconfig.json');
  const tsconfig = readJson(tsconfigFile);
  // In alphabetical place, without reordering the entries already there.
  const at = tsconfig.references.findIndex((r) => r.path.localeCompare(`plugins/${folder}`) > 0);
  tsconfig.references.splice(at === -1 ? tsconfig.references.length : at, 0, { path: `plugins/${folder}` });
  writeJson(tsconfigFile, tsconfig);
  const changed = [relative(root, tsconfigFile)];

  if (options.firstParty) {
    const listFile = firstPartyListFile(root);
    const text = readFileSync(listFile, 'utf8');
    const list = /export const FIRST_PARTY_PLUGINS[^=]*= \[\n([\s\S]*?)\n\];/.exec(text);
    if (!list) throw new Error(`cannot find the FIRST_PARTY_PLUGINS array in ${relative(root, listFile)}`);
    writeFileSync(listFile, text.replace(list[0], list[0].replace(/\n\];$/, `\n  '${packageName}',\n];`)));
    // The package that lists it must depend on it, so that it resolves wherever that package is installed.
    const ownerFile = join(root, 'packages', relative(join(root, 'packages'), listFile).split(sep)[0], 'package.json');
    const owner = readJson(ownerFile);
    owner.dependencies = Object.fromEntries(Object.entries({ ...owner.dependencies, [packageName]: pkg.version }).sort(([a], [b]) => a.localeCompare(b)));
    writeJson(ownerFile, owner);
    changed.push(relative(root, listFile), relative(root, ownerFile));
  }
  return { packageName, dir: relative(root, dir), written, changed };
}

function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
    if (args.help) {
      console.log(USAGE);
      return;
    }
    if (args.positional.length !== 2) throw new Error(USAGE);
    const [kind, name] = args.positional;
    const result = generate(kind, name, args);
    console.log(`Created ${result.packageName} in ${result.dir}:\n${result.written.map((f) => `  + ${f}`).join('\n')}`);
    console.log(`Registered in:\n${result.changed.map((f) => `  ~ ${f}`).join('\n')}`);
    console.log(`Next:
  npm install                      # links the new workspace (and updates package-lock.json)
  npm run build && npx jest ${result.dir}
  then write the real ${kind} in ${result.dir}/src and its README; docs/writing-a-plugin.md has the checklist`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  }
}

if (require.main === module) main();

module.exports = { generate, KINDS };
