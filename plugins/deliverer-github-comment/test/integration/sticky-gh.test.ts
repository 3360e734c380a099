// Sticky comments through gh: a stand-in gh that forwards `gh api --method M <path> --input -` to a local GitHub
// stand-in (and prints GitHub's JSON, or "gh: Not Found (HTTP 404)" as the real client does) — the first answer
// creates the comment, later ones PATCH it, a deleted one is posted again.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Deliverer } from '@hookwise/core';
import { createTestPluginContext } from '@hookwise/testing';
import { createCommentDeliverer } from '@hookwise/plugin-deliverer-github-comment';

const standInGh = (apiBase: string) => `#!${process.execPath}
const args = process.argv.slice(2);
const method = args[args.indexOf('--method') + 1];
const target = args[args.indexOf('--input') - 1];
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', async () => {
  const res = await fetch(${JSON.stringify(apiBase)} + '/' + target, { method, headers: { accept: 'application/vnd.github+json', 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
  const text = await res.text();
  process.stdout.write(text);
  if (!res.ok) { process.stderr.write('gh: ' + JSON.parse(text).message + ' (HTTP ' + res.status + ')\\n'); process.exit(1); }
});
`;

describe('github_comment sticky comments through gh api', () => {
  let dir: string;
  let server: Server;
  const calls: string[] = [];
  const comments = new Map<number, string>();
  let deliverer: Deliverer;

  beforeAll(async () => {
    let next = 500;
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        calls.push(`${req.method} ${req.url}`);
        const { body } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { body: string };
        const edit = /^\/repos\/octo\/hello\/issues\/comments\/(\d+)$/.exec(req.url ?? '');
        let id: number;
        if (req.method === 'POST' && req.url === '/repos/octo/hello/issues/7/comments') id = next += 1;
        else if (req.method === 'PATCH' && edit && comments.has(Number(edit[1]))) id = Number(edit[1]);
        else return res.writeHead(404).end(JSON.stringify({ message: 'Not Found' }));
        comments.set(id, body);
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id, body, html_url: `https://github.example/octo/hello/pull/7#issuecomment-${id}` }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    dir = mkdtempSync(path.join(tmpdir(), 'hookwise-gh-sticky-'));
    const gh = path.join(dir, 'gh');
    writeFileSync(gh, standInGh(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    chmodSync(gh, 0o755);
    deliverer = createCommentDeliverer({ cli_path: gh, timeout_seconds: 10 }, createTestPluginContext().ctx);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const deliver = (text: string) =>
    deliverer.deliver(
      { text, route: 'review', event: 'pull_request', deliveryId: `d-${text}`, extra: { repo: 'octo/hello', pr_number: '7', sticky: 'octo/hello#7' } },
      { signal: new AbortController().signal, attempt: 1 },
    );

  it('creates once, edits after, and posts again when the comment was deleted', async () => {
    expect(await deliver('one')).toEqual({ target: 'octo/hello#7', ids: ['https://github.example/octo/hello/pull/7#issuecomment-501'], sticky: 'created' });
    expect(await deliver('two')).toMatchObject({ sticky: 'edited' });
    expect(await deliver('three')).toMatchObject({ sticky: 'edited' });
    expect(calls).toEqual([
      'POST /repos/octo/hello/issues/7/comments',
      'PATCH /repos/octo/hello/issues/comments/501',
      'PATCH /repos/octo/hello/issues/comments/501',
    ]);
    expect([...comments]).toEqual([[501, 'three']]);
    comments.delete(501);
    expect(await deliver('four')).toMatchObject({ sticky: 'created', ids: ['https://github.example/octo/hello/pull/7#issuecomment-502'] });
    expect(await deliver('five')).toMatchObject({ sticky: 'edited' });
    expect([...comments]).toEqual([[502, 'five']]);
  });

  it('refuses a sticky key left with an unresolved placeholder', async () => {
    await expect(
      deliverer.deliver(
        { text: 'x', route: 'r', event: 'pull_request', deliveryId: 'd', extra: { repo: 'octo/hello', pr_number: '7', sticky: '{pull_request.number}' } },
        { signal: new AbortController().signal, attempt: 1 },
      ),
    ).rejects.toMatchObject({ code: 'HW_E_DELIVERY_TARGET', retryable: false });
  });
});
