// Docs that run: every ```sh block of README.md, docs/getting-started.md and each example's README, in order, in
// one bash per document (set -euo pipefail, stdin closed), from the repository root, against real gateways in a
// temporary HOOKWISE_HOME with WEBHOOK_PORT set to a free port. Blocks marked ```sh illustrative are not run.
//
// What stands in for a person at a terminal (the shims on PATH, written below):
// - A foreground server (`hookwise gateway run`, `npx hookwise gateway run`, `npm start`) is started in the
//   background and the script goes on once it listens, as if the next block were pasted into a second terminal;
//   starting the next one stops the previous one first, as Ctrl-C would (one terminal, one gateway).
// - `npm ci` and `npm test` do nothing: the suite runs inside them. The shell has none of the npm_* variables
//   of the npm that runs the suite.
// - `curl` fails on an HTTP error (--fail-with-body), so a 401 or 404 fails the document, and every answer is
//   kept: none may be "ignored" or "duplicate".
// - `gh` and `claude` are stand-ins (the code host and the agent are out of reach): `gh` is logged in and records
//   the comments it is asked to post, `claude` answers with what it read.
import { execFile, execFileSync } from 'node:child_process';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CLI_BIN } from '../cli-process';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

// A document starts gateways (npm start builds first): allow minutes, not jest's seconds.
jest.setTimeout(300_000);

const ROOT = join(TEST_DIR, '..', '..', '..');
const DOCUMENTS = [
  'README.md',
  'docs/getting-started.md',
  ...readdirSync(join(ROOT, 'examples'))
    .filter((dir) => existsSync(join(ROOT, 'examples', dir, 'README.md')))
    .sort()
    .map((dir) => `examples/${dir}/README.md`),
];

export interface Snippet {
  line: number;
  code: string;
}

/** The ```sh / ```bash / ```shell blocks of a Markdown text, without those marked `illustrative`. */
export function runnableSnippets(markdown: string): Snippet[] {
  const snippets: Snippet[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(sh|bash|shell)\b(.*)$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    if (end === -1) throw new Error(`unclosed code block at line ${i + 1}`);
    if (!/\billustrative\b/.test(open[2])) snippets.push({ line: i + 1, code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return snippets;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A program's path on the PATH the tests run with (the shims come first on the documents' PATH). */
function realProgram(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* next */
    }
  }
  throw new Error(`${name} is not on PATH`);
}

/** The stand-ins and shims, in a directory put first on PATH. */
function writeShims(bin: string, state: string): void {
  const write = (name: string, text: string) => {
    writeFileSync(join(bin, name), text);
    chmodSync(join(bin, name), 0o755);
  };
  // Starts a foreground server in the background, after stopping the previous one; returns once it listens.
  write(
    'hookwise-background',
    `#!/usr/bin/env bash
# Runs "$@" as the one foreground server of this terminal: the previous one is stopped first (Ctrl-C).
set -u
state=${JSON.stringify(state)}
if [ -f "$state/server.pid" ]; then
  old=$(cat "$state/server.pid")
  kill -TERM "$old" 2>/dev/null
  for _ in $(seq 1 150); do kill -0 "$old" 2>/dev/null || break; sleep 0.1; done
fi
n=$(( $(cat "$state/servers" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$state/servers"
log="$state/server-$n.log"
"$@" > "$log" 2>&1 < /dev/null &
echo $! > "$state/server.pid"
for _ in $(seq 1 1200); do
  if grep -q 'listening on' "$log"; then echo "[snippet test] started in the background: $* (log: $log)"; exit 0; fi
  if ! kill -0 "$(cat "$state/server.pid")" 2>/dev/null; then echo "[snippet test] $* exited before listening:"; cat "$log"; exit 1; fi
  sleep 0.1
done
echo "[snippet test] $* did not listen within 120 s:"; cat "$log"; exit 1
`,
  );
  write(
    'hookwise',
    `#!/usr/bin/env bash
if [ "\${1:-}" = gateway ] && [ "\${2:-}" = run ]; then exec hookwise-background ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_BIN)} "$@"; fi
exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_BIN)} "$@"
`,
  );
  write(
    'npx',
    `#!/usr/bin/env bash
if [ "\${1:-}" = hookwise ]; then shift; exec hookwise "$@"; fi
echo "[snippet test] npx $* is not run here: mark the block illustrative" >&2; exit 1
`,
  );
  write(
    'npm',
    `#!/usr/bin/env bash
case "\${1:-}" in
  ci|install|test) echo "[snippet test] npm $1: skipped (the suite runs inside npm ci && npm test)";;
  start) exec hookwise-background ${JSON.stringify(realProgram('npm'))} start;;
  *) exec ${JSON.stringify(realProgram('npm'))} "$@";;
esac
`,
  );
  write(
    'curl',
    `#!/usr/bin/env bash
# curl that fails on an HTTP error and keeps every answer for the test.
out=$(${JSON.stringify(realProgram('curl'))} -sS --fail-with-body "$@"); status=$?
printf '%s\\n' "$out"; printf '%s\\n' "$out" >> ${JSON.stringify(join(state, 'responses'))}
exit $status
`,
  );
  write(
    'gh',
    `#!/usr/bin/env bash
# Stand-in for the code host's CLI: logged in; records what it is asked to do (and a comment's body).
echo "gh $*" >> ${JSON.stringify(join(state, 'gh.log'))}
case "\${1:-}" in
  --version) echo "gh version 2.62.0 (snippet-test stand-in)";;
  auth) echo "Logged in to github.com (snippet-test stand-in)";;
  pr|issue) cat >> ${JSON.stringify(join(state, 'gh.log'))}; echo "https://github.com/octo-org/hello/pull/1#issuecomment-1";;
esac
exit 0
`,
  );
  write(
    'claude',
    `#!/usr/bin/env bash
# Stand-in for the agent CLI: answers with what it read.
if [ "\${1:-}" = --version ]; then echo "claude (snippet-test stand-in)"; exit 0; fi
printf 'Stand-in review of: '; head -c 300
`,
  );
}

interface DocumentRun {
  code: number;
  output: string;
  responses: string[];
  state: string;
}

/**
 * macOS's date (BSD) has no %N: `date +%s%N` prints the seconds and a literal N, so two ids made in one second
 * collide. This stand-in behaves so on Linux: every %N of a format becomes N, the rest is the real date's.
 */
function writeBsdDate(bin: string): void {
  const real = realProgram('date');
  writeFileSync(
    join(bin, 'date'),
    `#!/bin/sh\nfor arg do\n  shift\n  case "$arg" in +*) arg=$(printf '%s' "$arg" | sed 's/%N/N/g') ;; esac\n  set -- "$@" "$arg"\ndone\nexec ${real} "$@"\n`,
  );
  chmodSync(join(bin, 'date'), 0o755);
}

async function runDocument(file: string, snippets: Snippet[], dateStyle: 'gnu' | 'bsd' = 'gnu'): Promise<DocumentRun> {
  const work = mkdtempSync(join(tmpdir(), 'hookwise-docs-'));
  const state = join(work, 'state');
  const bin = join(work, 'bin');
  const home = join(work, 'home');
  mkdirSync(state);
  mkdirSync(bin);
  mkdirSync(home);
  writeShims(bin, state);
  if (dateStyle === 'bsd') writeBsdDate(bin);
  const script = [
    'set -euo pipefail',
    'cleanup() { if [ -f "$SNIPPET_STATE/server.pid" ]; then pid=$(cat "$SNIPPET_STATE/server.pid"); kill -TERM "$pid" 2>/dev/null; for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done; fi; }',
    'trap cleanup EXIT',
    ...snippets.flatMap((s) => [`echo "[snippet test] ${file}:${s.line}"`, s.code]),
  ].join('\n');
  writeFileSync(join(work, 'script.sh'), script);
  const port = await freePort();
  // A person's terminal, not npm's: without the npm_* variables of the npm that runs this suite.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    PATH: `${bin}:${process.env.PATH}`,
    // Everything the documents write goes to this run's directories, never to the real ~/.hookwise.
    HOME: work,
    HOOKWISE_HOME: home,
    WEBHOOK_PORT: String(port),
    WEBHOOK_SECRET: '',
    WEBHOOK_ENABLED: '',
    WEBHOOK_HOST: '',
    SNIPPET_STATE: state,
    OCLIF_COLUMNS: '200',
    // npm keeps its own configuration and cache although HOME moved.
    npm_config_userconfig: join(process.env.HOME ?? '/root', '.npmrc'),
    npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? '/root', '.npm'),
  };
  const result = await new Promise<{ code: number; output: string }>((resolve) => {
    const child = execFile(
      'bash',
      ['--noprofile', '--norc', join(work, 'script.sh')],
      { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024, timeout: 280_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, output: `${String(stdout)}${String(stderr)}` });
      },
    );
    child.stdin?.end();
  });
  const responses = existsSync(join(state, 'responses')) ? readFileSync(join(state, 'responses'), 'utf8').split('\n').filter(Boolean) : [];
  return { ...result, responses, state };
}

/** Every server log of a run, for failure messages. */
function serverLogs(state: string): string {
  return readdirSync(state)
    .filter((name) => name.startsWith('server-'))
    .map((name) => `--- ${name}\n${readFileSync(join(state, name), 'utf8').slice(-4000)}`)
    .join('\n');
}

describe('runnableSnippets', () => {
  it('takes sh, bash and shell blocks in order and leaves out the illustrative ones and other languages', () => {
    const md = [
      '# x',
      '```sh',
      'echo one',
      '```',
      '```sh illustrative',
      'npm install -g x',
      '```',
      '```yaml',
      'a: 1',
      '```',
      '```bash',
      'echo two',
      '```',
    ].join('\n');
    expect(runnableSnippets(md)).toEqual([
      { line: 2, code: 'echo one' },
      { line: 11, code: 'echo two' },
    ]);
  });
});

// Documents without a runnable block (only illustrative ones) have nothing to run.
const RUNNABLE = DOCUMENTS.filter((file) => runnableSnippets(readFileSync(join(ROOT, file), 'utf8')).length > 0);

it('finds runnable snippets in the README and the getting-started guide', () => {
  expect(RUNNABLE).toEqual(expect.arrayContaining(['README.md', 'docs/getting-started.md']));
});

// The documents that make delivery ids also run with macOS's date (issue 35 item 6: both README ids were `push-<s>N`).
const WITH_BSD_DATE = ['README.md', 'docs/getting-started.md'];
const RUNS: Array<[string, 'gnu' | 'bsd']> = [
  ...RUNNABLE.map((file): [string, 'gnu'] => [file, 'gnu']),
  ...WITH_BSD_DATE.map((file): [string, 'bsd'] => [file, 'bsd']),
];

it('the BSD date stand-in prints N for %N, as macOS does', () => {
  const bin = mkdtempSync(join(tmpdir(), 'hookwise-bsd-date-'));
  try {
    writeBsdDate(bin);
    const out = execFileSync(join(bin, 'date'), ['+%s%N'], { encoding: 'utf8' });
    expect(out.trim()).toMatch(/^\d+N$/);
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

it('no user doc makes an id with %N (BSD date prints it literally)', () => {
  const docs = [
    ...DOCUMENTS,
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const offenders = docs.filter((file) => /\$\(date [^)]*%N/.test(readFileSync(join(ROOT, file), 'utf8')));
  expect(offenders).toEqual([]);
});

describe.each(RUNS)('the shell snippets of %s (%s date)', (file, dateStyle) => {
  const snippets = runnableSnippets(readFileSync(join(ROOT, file), 'utf8'));

  it('run in order, every request answered 2xx, none ignored or a duplicate', async () => {
    const run = await runDocument(file, snippets, dateStyle);
    try {
      const context = `\n${run.output}\n${serverLogs(run.state)}`;
      expect({ file: relative(ROOT, join(ROOT, file)), code: run.code, context: run.code === 0 ? '' : context }).toEqual({ file, code: 0, context: '' });
      for (const response of run.responses)
        expect({ response, context: '' }).toEqual({ response: expect.not.stringMatching(/"status":"(ignored|duplicate)"/), context: '' });
    } finally {
      rmSync(join(run.state, '..'), { recursive: true, force: true });
    }
  });
});
