// The package arrows of docs/architecture.md are enforced by eslint.config.mjs; this runs ESLint (in a child
// process: its config is an ES module) over sample sources placed in each folder, so the rules cannot quietly go.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const ROOT = join(TEST_DIR, '..', '..', '..');

const CASES: Array<[file: string, code: string, allowed: boolean]> = [
  [
    'plugins/deliverer-telegram/src/sample.ts',
    "import { sleep } from '@hookwise/kit';\nimport { HookwiseError } from '@hookwise/core';\nexport const a = [sleep, HookwiseError, require('../../package.json')];\n",
    true,
  ],
  ['plugins/deliverer-telegram/src/sample.ts', "import { PluginRegistry } from '@hookwise/gateway';\nexport const a = PluginRegistry;\n", false],
  ['plugins/deliverer-telegram/src/sample.ts', "import type { PluginRegistry } from '@hookwise/gateway';\nexport type A = PluginRegistry;\n", false],
  ['plugins/deliverer-telegram/src/sample.ts', "export const a = require('@hookwise/server');\n", false],
  ['plugins/agent-openai/src/sample.ts', "export { default } from '@hookwise/plugin-agent-command';\n", false],
  // plugins -> agent-kit -> kit -> core: the kit's entry points by audience; the agent kit for agent runners only.
  ['plugins/deliverer-telegram/src/sample.ts', "import { definePlatform } from '@hookwise/kit/platform';\nexport const a = definePlatform;\n", true],
  ['plugins/source-github/src/sample.ts', "import { verifyHexHmac } from '@hookwise/kit/source';\nexport const a = verifyHexHmac;\n", true],
  ['plugins/deliverer-telegram/src/sample.ts', "import { RunnerTools } from '@hookwise/agent-kit';\nexport const a = RunnerTools;\n", false],
  [
    'plugins/agent-openai/src/sample.ts',
    "import { RunnerTools } from '@hookwise/agent-kit';\nimport { sleep } from '@hookwise/kit';\nexport const a = [RunnerTools, sleep];\n",
    true,
  ],
  [
    'packages/agent-kit/src/sample.ts',
    "import { sleep } from '@hookwise/kit';\nimport { HookwiseError } from '@hookwise/core';\nexport const a = [sleep, HookwiseError];\n",
    true,
  ],
  ['packages/agent-kit/src/sample.ts', "import { PluginRegistry } from '@hookwise/gateway';\nexport const a = PluginRegistry;\n", false],
  ['packages/kit/src/sample.ts', "import { RunnerTools } from '@hookwise/agent-kit';\nexport const a = RunnerTools;\n", false],
  [
    'packages/core/src/sample.ts',
    "import type { Writable } from 'node:stream';\nimport { b } from '../b';\nexport type A = Writable;\nexport const c = b;\n",
    true,
  ],
  ['packages/core/src/sample.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n", false],
  ['packages/core/src/sample.ts', "import type { RunProcessOptions } from '@hookwise/kit';\nexport type A = RunProcessOptions;\n", false],
  ['packages/core/src/sample.ts', "export const a = require('ajv');\n", false],
  [
    'packages/kit/src/sample.ts',
    "import { HookwiseError } from '@hookwise/core';\nimport { LRUCache } from 'lru-cache';\nexport const a = [HookwiseError, LRUCache];\n",
    true,
  ],
  ['packages/kit/src/sample.ts', "import { PluginRegistry } from '@hookwise/gateway';\nexport const a = PluginRegistry;\n", false],
  ['packages/store-sqlite/src/sample.ts', "import { sleep } from '@hookwise/kit';\nexport const a = sleep;\n", false],
  ['packages/gateway/src/sample.ts', "import { startGateway } from '@hookwise/server';\nexport const a = startGateway;\n", false],
  [
    'packages/gateway/src/sample.ts',
    "import { HookwiseError } from '@hookwise/core';\nexport const a = [HookwiseError, import('@hookwise/store-sqlite')];\n",
    true,
  ],
];

const SCRIPT = `
const { ESLint } = require('eslint');
const cases = JSON.parse(process.argv[1]);
(async () => {
  const eslint = new ESLint({ cwd: ${JSON.stringify(ROOT)} });
  const out = [];
  for (const [file, code] of cases) {
    const [result] = await eslint.lintText(code, { filePath: ${JSON.stringify(ROOT)} + '/' + file });
    out.push(result.messages.filter((m) => m.ruleId && /restricted/.test(m.ruleId)).map((m) => m.message));
  }
  process.stdout.write(JSON.stringify(out));
})().catch((err) => { console.error(err); process.exit(1); });
`;

describe('import rules (eslint.config.mjs)', () => {
  const verdicts = JSON.parse(
    execFileSync(process.execPath, ['-e', SCRIPT, JSON.stringify(CASES.map(([file, code]) => [file, code]))], { cwd: ROOT, encoding: 'utf8' }),
  ) as string[][];

  it.each(CASES.map(([file, code, allowed], i) => ({ file, code: code.split('\n')[0], allowed, i })))(
    '$file: `$code` is allowed: $allowed',
    ({ allowed, i }) => {
      if (allowed) expect(verdicts[i]).toEqual([]);
      else expect(verdicts[i].length).toBeGreaterThan(0);
    },
  );
});
