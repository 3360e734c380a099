// docs/cli.md is generated from the command definitions: the committed file must equal a fresh rendering.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import '../cli-process';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

// Each test starts real processes; on a loaded machine they are slow, so allow more than jest's default.
jest.setTimeout(120_000);

const CLI_ROOT = join(TEST_DIR, '..');

it('docs/cli.md is up to date with the commands (regenerate: node packages/cli/scripts/gen-cli-docs.js)', async () => {
  // A child process: oclif loads commands with dynamic import(), which jest's module sandbox does not allow.
  const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, [join(CLI_ROOT, 'scripts', 'gen-cli-docs.js'), '--check'], (err, _stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr: String(stderr) }),
    );
  });
  expect(result).toEqual({ code: 0, stderr: '' });
});

it('documents every webhook and skills command with its flags', () => {
  const docs = readFileSync(join(CLI_ROOT, '..', '..', 'docs', 'cli.md'), 'utf8');
  for (const id of ['webhook subscribe', 'webhook list', 'webhook remove', 'webhook test', 'skills list']) expect(docs).toContain(`### \`hookwise ${id}\``);
  expect(docs).toContain('hookwise webhook subscribe <name> [--json]');
  expect(docs).toMatch(/\| `--deliver-extra` \| .*\(repeatable\) \|/);
});
