// The startup check and `doctor`'s check of GitHub's CLI: a route that comments through `gh` needs it on PATH, one
// whose github_comment posts as a GitHub App (app_id) never runs it, so it is not warned about.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookwiseConfig, Route } from '@hookwise/gateway';
import { checkGithubClient } from '../../src/tool-checks';

const dir = mkdtempSync(join(tmpdir(), 'hookwise-gh-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const routes = [{ name: 'pr-review', deliver: 'github_comment' }] as unknown as Route[];
const configWith = (github: Record<string, unknown>) => ({ platforms: { github_comment: { enabled: true, ...github } } }) as unknown as HookwiseConfig;
// A PATH without gh on it.
const env = { PATH: dir };

describe('the GitHub CLI check', () => {
  it('warns that gh is missing for a route that comments through it', async () => {
    const results = await checkGithubClient({ config: configWith({}), routes, configDir: dir, env });
    expect(results).toEqual([expect.objectContaining({ check: "GitHub CLI 'gh'", status: 'warn', detail: expect.stringContaining('dead letter') })]);
  });

  it('says nothing of gh for a route that posts as a GitHub App, which needs no gh', async () => {
    expect(await checkGithubClient({ config: configWith({ app_id: 123456, private_key_env: 'GH_APP_KEY' }), routes, configDir: dir, env })).toEqual([]);
    expect(await checkGithubClient({ config: configWith({ app_id: '123456', private_key_file: 'app.pem' }), routes, configDir: dir, env })).toEqual([]);
  });
});
