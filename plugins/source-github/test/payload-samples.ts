// Documented GitHub payloads the source's tests use, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';
import { githubFixture, type GithubFixture } from '@hookwise/testing';

const fixture = (name: GithubFixture, event: string): PayloadSample => ({ name, event, body: githubFixture(name).toString('utf8') });

const samples: PayloadSample[] = [
  fixture('push', 'push'),
  fixture('pull_request.opened', 'pull_request'),
  fixture('issues.opened', 'issues'),
  fixture('issue_comment.created', 'issue_comment'),
  fixture('issue_comment.created.pull_request', 'issue_comment'),
  fixture('workflow_run.completed', 'workflow_run'),
  fixture('ping', 'ping'),
];
export default samples;
