// Error links that resolve: every error names `hookwise docs errors <code>`, which prints that code's section of the
// docs/errors.md the CLI carries (packed too); no message, doc or unit file points at a website that does not exist.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOCS_BASE, ERROR_CATALOGUE, HookwiseConfigError, HookwiseError, describeError, type ErrorCode } from '@hookwise/core';
import { runCli, tempHome } from '../cli-process';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..', '..', '..');
const CLI_ROOT = join(ROOT, 'packages', 'cli');
// The built module the command uses, so these assertions read the page the way `hookwise docs errors` does.
const errorDocs = require(join(CLI_ROOT, 'dist', 'error-docs.js')) as typeof import('../../src/error-docs');

const home = tempHome();
const plain = (text: string) => text.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ');

describe('hookwise docs errors', () => {
  it('every code a message can name has a section the command finds', () => {
    const page = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8');
    for (const code of Object.keys(ERROR_CATALOGUE) as ErrorCode[]) {
      const ref = new HookwiseError(code).docsUrl;
      expect(ref.startsWith(`${DOCS_BASE} `)).toBe(true);
      const section = errorDocs.errorDocSection(page, ref.slice(DOCS_BASE.length + 1));
      expect(section?.split('\n')[0]).toBe(`## ${code}`);
    }
  });

  it('prints the section a message names, and only that section', async () => {
    const message = describeError(new HookwiseConfigError(["route 'ci' has no secret"], 'config.yaml is not valid'));
    const command = /Details: (hookwise docs errors \S+)$/.exec(message)?.[1];
    expect(command).toBe('hookwise docs errors hw_e_config');
    const result = await runCli(command!.split(' ').slice(1), home);
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('## HW_E_CONFIG\n')).toBe(true);
    expect(result.stdout).not.toContain('## HW_E_PLUGIN_LOAD');
    expect(result.stdout).toContain('errors.md#hw_e_config');
  });

  it('suggests the code for a typo, exit 2; --json carries the section', async () => {
    const typo = await runCli(['docs', 'errors', 'hw_e_confg'], home);
    expect(typo.code).toBe(2);
    expect(plain(typo.stderr)).toContain('Did you mean hw_e_config?');
    const json = await runCli(['docs', 'errors', 'HW_E_BAD_BODY', '--json'], home);
    expect(JSON.parse(json.stdout)).toMatchObject({ code: 'HW_E_BAD_BODY', text: expect.stringMatching(/^## HW_E_BAD_BODY\n/) });
  });

  it('the packed CLI carries docs/errors.md', () => {
    execFileSync(process.execPath, [join(CLI_ROOT, 'scripts', 'copy-docs.js')]);
    expect(existsSync(join(CLI_ROOT, 'docs', 'errors.md'))).toBe(true);
    const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: CLI_ROOT, encoding: 'utf8' })) as [
      { files: { path: string }[] },
    ];
    expect(packed[0].files.map((f) => f.path)).toContain('docs/errors.md');
    // Found from the package's own copy, as in a tarball or the image (whose build deletes the repository's docs/).
    expect(errorDocs.errorDocsPath(CLI_ROOT)).toBe(join(CLI_ROOT, 'docs', 'errors.md'));
  });

  it('nothing in the repository names the project domain, which does not exist', () => {
    // git grep exits 1 when nothing matches; the pattern is split so that this file is no hit of its own.
    const grep = spawnSync('git', ['grep', '-n', '-I', '-e', ['hookwise', 'dev'].join('\\.'), '--', '.'], { cwd: ROOT, encoding: 'utf8' });
    expect(grep.stdout.trim()).toBe('');
    expect(grep.status).toBe(1);
  });
});
