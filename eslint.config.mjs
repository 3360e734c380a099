// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // packages/gateway/src/generated: ajv's standalone validators, written by packages/gateway/scripts/gen-validators.js.
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', '**/*.d.ts', 'packages/gateway/src/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  // Which package may import which (docs/architecture.md): plugins -> agent-kit -> kit -> core (agent runners
  // alone use agent-kit, which alone brings the MCP SDK); stores -> core; sandbox -> core;
  // gateway -> sandbox -> core (and plugins, by name), never a host. Runners never import the sandbox: they get
  // it through core's AgentTask.sandbox (the plugin rules below leave @hookwise/sandbox out). Core is the contract package: nothing of ours, nothing at run time from node_modules or
  // Node itself, only types. Type imports count for our packages too, so a plugin cannot lean on the gateway's types.
  importRules(
    'packages/core/src/**/*.ts',
    '^(?![.]{1,2}/)',
    '@hookwise/core is the contract package: it imports nothing at run time (only `import type`), and no package of ours at all.',
    [
      { group: ['@hookwise/*'], message: '@hookwise/core is the contract package: it imports no other package of ours.' },
      // Our packages are left to the pattern above: a type import matching a pattern that allows types passes.
      {
        regex: '^(?![.]{1,2}/|@hookwise/)',
        allowTypeImports: true,
        message: '@hookwise/core has no runtime dependencies: import only types from outside core (`import type`).',
      },
    ],
  ),
  importRules('packages/kit/src/**/*.ts', ...ours(['core'], 'The kit builds on @hookwise/core only.')),
  importRules('packages/agent-kit/src/**/*.ts', ...ours(['core', 'kit'], 'The agent kit builds on @hookwise/core and the root @hookwise/kit only.')),
  importRules('packages/store-*/src/**/*.ts', ...ours(['core'], 'A store depends on @hookwise/core only (it is loaded as a plugin).')),
  importRules('packages/sandbox/src/**/*.ts', ...ours(['core'], 'The sandbox builds on @hookwise/core only, so every runner can be wired to it.')),
  // The gateway loads first-party plugins and stores by name, so only the hosts are kept out of it.
  importRules(
    'packages/gateway/src/**/*.ts',
    ...forbidden(['server', 'cli', 'testing'], 'The hosts (server, CLI) and the test kit depend on the gateway, not the other way.'),
  ),
  importRules(
    'plugins/*/src/**/*.ts',
    ...ours(
      ['core', 'kit', 'kit/source', 'kit/platform'],
      'A first-party plugin imports only @hookwise/core and @hookwise/kit (root, /source, /platform) of our packages, like a third-party one; agent runners also @hookwise/agent-kit.',
    ),
  ),
  // Later entries win for the same files: agent runners may also use the agent kit.
  importRules(
    'plugins/agent-*/src/**/*.ts',
    ...ours(
      ['core', 'kit', 'kit/source', 'kit/platform', 'agent-kit'],
      'An agent runner imports only @hookwise/core, @hookwise/kit (root, /source, /platform) and @hookwise/agent-kit of our packages.',
    ),
  ),
);

/** Arguments for importRules forbidding every @hookwise/* package (our plugins included) except the ones named. */
function ours(allowed, message) {
  const regex = `^@hookwise/(?!(${allowed.join('|')})$)`;
  return [regex, message, [{ regex, message }]];
}

/** Arguments for importRules forbidding the @hookwise/* packages named. */
function forbidden(names, message) {
  const regex = `^@hookwise/(${names.join('|')})$`;
  return [regex, message, [{ regex, message }]];
}

/**
 * The rules for the source files of a folder: no-restricted-imports for `import`/`export from` (type imports
 * count unless a pattern allows them), and the same for `require()` and `import()` with a literal name, which
 * that rule does not see. `callRegex` is what those calls may not name.
 */
function importRules(files, callRegex, message, patterns) {
  // esquery ends a /regex/ at the first slash, so slashes in it are escaped.
  const literal = `/${callRegex.replaceAll('/', '\\/')}/`;
  const calls = [`CallExpression[callee.name='require'][arguments.0.value=${literal}]`, `ImportExpression[source.value=${literal}]`];
  return {
    files: [files],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns }],
      'no-restricted-syntax': ['error', ...calls.map((selector) => ({ selector, message }))],
    },
  };
}
