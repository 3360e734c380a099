// The deliverer contract's inputs (run by the first-party contracts test). The deliverer runs the code host's client, not HTTP, so each
// world gets a stand-in client that does what the real one does: it sends the comment body (read from stdin) to
// the code host's REST API, here the kit's recording server, and prints what the real client prints.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { commentDeliverer } from '@hookwise/plugin-deliverer-github-comment';

// argv: pr comment <n> --repo <owner/name> --body-file -
const standIn = (apiBase: string) => `#!${process.execPath}
const [, , , , number, , repo] = process.argv;
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', async () => {
  const url = ${JSON.stringify(apiBase)} + '/repos/' + repo + '/issues/' + number + '/comments';
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ body: Buffer.concat(chunks).toString('utf8') }) });
  const answer = await res.json().catch(() => ({}));
  if (res.ok) {
    process.stdout.write('https://github.example/' + repo + '/pull/' + number + '#issuecomment-' + (answer.id ?? 1) + '\\n');
    process.exit(0);
  }
  process.stderr.write('HTTP ' + res.status + ': ' + (answer.message ?? res.statusText) + ' (' + url + ')\\n');
  process.exit(1);
});
`;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

export default delivererContractCase(
  'codehost_a_comment',
  ({ server, test }) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hookwise-gh-contract-'));
    dirs.push(dir);
    const cli = path.join(dir, 'gh');
    writeFileSync(cli, standIn(server.url));
    chmodSync(cli, 0o755);
    return commentDeliverer.create({ cli_path: cli, timeout_seconds: 10 }, test.ctx) as Deliverer;
  },
  {
    extra: { repo: 'octo-org/hello-world', pr_number: '42' },
    api: (_req, scenario) =>
      scenario === 'deliver'
        ? { status: 201, json: { id: 1001, body: 'x' } }
        : scenario === 'retryable'
          ? { status: 502, json: { message: 'Server Error' } }
          : { status: 404, json: { message: 'Not Found' } },
    verifyDelivered: ({ server }, receipt) => {
      expect(server.requests.map((r) => r.path)).toEqual(['/repos/octo-org/hello-world/issues/42/comments']);
      expect(receipt).toEqual({ target: 'octo-org/hello-world#42', ids: ['https://github.example/octo-org/hello-world/pull/42#issuecomment-1001'] });
    },
  },
);
