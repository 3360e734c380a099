// The real agent CLIs, installed by .ci/run at the versions pinned in .ci/agent-clis.json into HOOKWISE_AGENT_CLIS
// (default .ci/agent-clis). A CLI that is missing or does not run here fails the test that needs it, with the
// command that installs it: CI must not pass by skipping.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '../../../..');
export const PINNED = JSON.parse(readFileSync(join(REPO, '.ci/agent-clis.json'), 'utf8')) as Record<string, string>;
export const CLIS_DIR = process.env.HOOKWISE_AGENT_CLIS ?? join(REPO, '.ci/agent-clis');
export const CLIS_BIN = join(CLIS_DIR, 'node_modules', '.bin');

const PACKAGES = { claude: '@anthropic-ai/claude-code', codex: '@openai/codex' } as const;

/** The CLI's path after checking it runs here at the pinned version; throws saying how to install it otherwise. */
export function realCli(name: keyof typeof PACKAGES): string {
  const pkg = PACKAGES[name];
  const install = `npm install --prefix ${CLIS_DIR} --no-save ${Object.entries(PINNED)
    .map(([n, v]) => `${n}@${v}`)
    .join(' ')} (what .ci/run does)`;
  const file = join(CLIS_BIN, name);
  if (!existsSync(file)) throw new Error(`${pkg} is not installed in ${CLIS_DIR}: ${install}`);
  let version: string;
  try {
    version = execFileSync(file, ['--version'], { encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH, HOME: '/nonexistent' } });
  } catch (err) {
    throw new Error(`${pkg} is installed in ${CLIS_DIR} but does not run on this machine (${(err as Error).message.slice(0, 300)}); reinstall: ${install}`);
  }
  if (!version.includes(PINNED[pkg])) throw new Error(`${pkg} in ${CLIS_DIR} is '${version.trim()}', not the pinned ${PINNED[pkg]}: ${install}`);
  return file;
}
