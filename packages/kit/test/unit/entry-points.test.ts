// Pins the kit's entry points by audience: the root (every plugin), /platform (deliverer authors) and /source
// (source authors) export explicit, disjoint lists, and the kit brings no agent dependency (the MCP SDK is
// @hookwise/agent-kit's alone), so a source or deliverer plugin never installs it.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as root from '@hookwise/kit';
import * as platform from '@hookwise/kit/platform';
import * as source from '@hookwise/kit/source';

const KIT = join(__dirname, '..', '..');
const SRC = join(KIT, 'src');

const ROOT_RUNTIME = [
  'BoundedCapture',
  'LineSplitter',
  'MAX_ARG_BYTES',
  'ProcessInputError',
  'SecretScrubber',
  'childEnvironment',
  'isSecretName',
  'retryAfterFromHeaders',
  'runProcess',
  'sleep',
  'urlSecrets',
];
const ROOT_TYPES = ['ChildEnvironmentOptions', 'ProcessResult', 'RunProcessOptions'];

const PLATFORM_RUNTIME = [
  'PROGRESS_TTL_MS',
  'VirtualClock',
  'checkErrorCode',
  'chunkText',
  'classifyHttpStatus',
  'definePlatform',
  'deliveryKey',
  'describeRequest',
  'errorCodeOf',
  'extraValue',
  'failureToError',
  'idempotencyDigest',
  'issuedTokenFrom',
  'joinUrl',
  'markdownToHtml',
  'markdownToMrkdwn',
  'markdownToPlainText',
  'pathSegment',
  'platformOptionsSchema',
  'progressKey',
  'renderChunkTemplate',
  'sendHttp',
];
const PLATFORM_TYPES = [
  'AlreadyDelivered',
  'Clock',
  'DeliveryProgress',
  'ErrorCodeRules',
  'FailureContext',
  'FailureKind',
  'HttpMethod',
  'HttpRequest',
  'HttpResponse',
  'HttpSendOptions',
  'IssuedToken',
  'LengthUnit',
  'OutgoingChunk',
  'PartialDelivery',
  'PlatformCall',
  'PlatformContribution',
  'PlatformDefinition',
  'PlatformDeliverer',
  'PlatformDelivererOverrides',
  'PlatformFailure',
  'PlatformOptions',
  'PlatformReceipt',
  'PlatformResponse',
  'PlatformRuntime',
  'PlatformSchemaInput',
  'ProgressStore',
  'ResolvedTarget',
  'ResponseVerdict',
  'SentPart',
  'SuccessRule',
  'TargetContext',
  'TargetRules',
  'TargetSource',
];

/** Every name an entry file re-exports (its lists are explicit: `export *` is refused below). */
function exportedNames(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const names = new Set<string>();
  for (const [, list] of text.matchAll(/^export (?:type )?\{([^}]*)\} from '[^']+';$/gm)) {
    for (const item of list.split(',')) {
      const name = item
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!;
      if (name) names.add(name);
    }
  }
  return [...names].sort();
}

describe('@hookwise/kit entry points', () => {
  it('the root exports exactly the shared names (redaction, Retry-After, sleep, child processes)', () => {
    expect(Object.keys(root).sort()).toEqual(ROOT_RUNTIME);
    expect(exportedNames(join(SRC, 'index.ts'))).toEqual([...ROOT_RUNTIME, ...ROOT_TYPES].sort());
  });

  it('/platform exports exactly what deliverer authors use', () => {
    expect(Object.keys(platform).sort()).toEqual(PLATFORM_RUNTIME);
    expect(exportedNames(join(SRC, 'platform', 'index.ts'))).toEqual([...PLATFORM_RUNTIME, ...PLATFORM_TYPES].sort());
  });

  it('the entry points share no name, and none uses `export *`', () => {
    const lists = [Object.keys(root), Object.keys(platform), Object.keys(source)];
    const all = lists.flat();
    expect(all.filter((name, i) => all.indexOf(name) !== i)).toEqual([]);
    for (const entry of ['index.ts', 'platform/index.ts', 'source/index.ts']) {
      expect(readFileSync(join(SRC, entry), 'utf8')).not.toMatch(/^export \*/m);
    }
  });

  it('package.json maps every entry point to its build, for node ("exports") and for TypeScript ("typesVersions")', () => {
    const pkg = JSON.parse(readFileSync(join(KIT, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; default: string } | string>;
      typesVersions: Record<string, Record<string, string[]>>;
    };
    expect(Object.keys(pkg.exports).sort()).toEqual(['.', './package.json', './platform', './source']);
    for (const entry of ['source', 'platform']) {
      expect(pkg.exports[`./${entry}`]).toEqual({ types: `./dist/${entry}/index.d.ts`, default: `./dist/${entry}/index.js` });
      expect(pkg.typesVersions['*'][entry]).toEqual([`dist/${entry}/index.d.ts`]);
      expect(existsSync(join(SRC, entry, 'index.ts'))).toBe(true);
    }
  });
});

describe('@hookwise/kit brings no agent dependency', () => {
  function dependencies(dir: string): Record<string, string> {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
  }

  it('neither the kit nor any package of ours it depends on lists the MCP SDK', () => {
    const seen = new Set<string>();
    const walk = (dir: string) => {
      const deps = dependencies(dir);
      expect(Object.keys(deps)).not.toContain('@modelcontextprotocol/sdk');
      for (const name of Object.keys(deps).filter((n) => n.startsWith('@hookwise/'))) {
        const next = join(KIT, '..', name.slice('@hookwise/'.length));
        if (!seen.has(next)) {
          seen.add(next);
          walk(next);
        }
      }
    };
    walk(KIT);
    expect([...seen].map((dir) => dir.split(/[\\/]/).pop())).toEqual(['core']);
  });

  it('no kit source imports the MCP SDK (it could not be installed with the kit)', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
    const importers = files(SRC).filter((file) => /@modelcontextprotocol\//.test(readFileSync(file, 'utf8')));
    expect(importers).toEqual([]);
  });
});
