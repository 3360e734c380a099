// Real webhook payloads shipped with the testing kit (packages/testing/fixtures), as exact bytes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIXTURES_DIR = join(__dirname, '..', 'fixtures');

export type GithubFixture =
  | 'issue_comment.created'
  | 'issue_comment.created.pull_request'
  | 'issue_comment.rest'
  | 'issues.opened'
  | 'ping'
  | 'pull_request.opened'
  | 'push'
  | 'workflow_run.completed';

/** The bytes of a GitHub payload, e.g. `githubFixture('pull_request.opened')`. */
export function githubFixture(name: GithubFixture): Buffer {
  return readFileSync(join(FIXTURES_DIR, 'github', `${name}.json`));
}
