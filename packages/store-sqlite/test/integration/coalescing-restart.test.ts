// Issue 23 over real HTTP with the SQLite store: GitHub pull_request events coalesced by pull request number survive
// a gateway restart inside their window. Two events, a stop, a start on the same file, a third event: the agent (a
// real command process) runs once, with the latest payload, and every delivery id finds that one job.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { githubFixture, signGithub, startTestGateway, type TestGateway } from '@hookwise/testing';

const SECRET = 'coalesce-restart-secret-0123456789';
const WINDOW_SECONDS = 3;

/** The agent: appends the prompt it got on stdin to a file (one JSON line per run) and answers. */
const AGENT = `
const { appendFileSync } = require('node:fs');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  appendFileSync(process.argv[2], JSON.stringify(input) + '\\n');
  process.stdout.write('reviewed');
});
`;

const opened = JSON.parse(githubFixture('pull_request.opened').toString()) as { pull_request: Record<string, unknown> };

/** A pull_request event on pull request 2 whose title names the push it stands for. */
function pullRequestEvent(title: string): Buffer {
  return Buffer.from(JSON.stringify({ ...opened, action: 'synchronize', pull_request: { ...opened.pull_request, number: 2, title } }));
}

const until = async <T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('coalescing with the SQLite store over HTTP', () => {
  let dir: string;
  /** The agent's script and its runs file: beside the config dir, which the agent sandbox hides from agent runs. */
  let agentDir: string;
  let gw: TestGateway | undefined;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'hookwise-coalesce-restart-'));
    agentDir = `${dir}.agent`;
    mkdirSync(agentDir);
  });
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
    rmSync(dir, { recursive: true, force: true });
    rmSync(agentDir, { recursive: true, force: true });
  });

  it('survives a restart inside the window: one agent run with the latest payload, and every delivery id finds its job', async () => {
    const runs = path.join(agentDir, 'runs.jsonl');
    writeFileSync(runs, '');
    writeFileSync(path.join(agentDir, 'agent.js'), AGENT);
    const start = () =>
      startTestGateway({
        configDir: dir,
        pollMs: 50,
        config: {
          platforms: {
            webhook: {
              enabled: true,
              extra: {
                routes: {
                  prs: {
                    secret: SECRET,
                    events: ['pull_request'],
                    prompt: 'review #{pull_request.number}: {pull_request.title}',
                    coalesce: { key: '{pull_request.number}', window_seconds: WINDOW_SECONDS },
                  },
                },
              },
            },
          },
          agent: {
            runner: 'command',
            command: [process.execPath, path.join(agentDir, 'agent.js'), runs],
            // The agent appends to the runs file, so its dir must be writable inside the sandbox.
            sandbox: { writable: [agentDir] },
          },
          store: { backend: 'sqlite', path: 'hookwise.sqlite' },
          admin: { enabled: true },
        },
      });
    const post = (gateway: TestGateway, title: string, delivery: string) => {
      const body = pullRequestEvent(title);
      return gateway.post('prs', body, { 'x-hub-signature-256': signGithub(SECRET, body), 'x-github-event': 'pull_request', 'x-github-delivery': delivery });
    };

    gw = await start();
    const first = await post(gw, 'first push', 'gh-delivery-1');
    expect(first.status).toBe(202);
    const second = await post(gw, 'second push', 'gh-delivery-2');
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ coalesced: true });
    await gw.stop();
    gw = undefined;
    // Nothing ran before the stop: the window is still open.
    expect(readFileSync(runs, 'utf8')).toBe('');

    gw = await start();
    const third = await post(gw, 'third push', 'gh-delivery-3');
    expect(third.status).toBe(202);
    expect(third.body).toMatchObject({ coalesced: true });
    // GitHub's redelivery of an event merged before the restart is a duplicate.
    expect((await post(gw, 'second push', 'gh-delivery-2')).body).toMatchObject({ status: 'duplicate' });

    const running = gw;
    const show = async (id: string) => {
      const res = await fetch(`${running.url}/api/deliveries/${id}`);
      return res.status === 200
        ? ((await res.json()) as { delivery: { id: string; status: string; coalesced?: { deliveryIds: string[] } } }).delivery
        : undefined;
    };
    const done = await until(async () => {
      const job = await show('gh-delivery-1');
      return job?.status === 'done' ? job : undefined;
    }, 'the coalesced job to be done');
    expect(done.coalesced?.deliveryIds).toEqual(['gh-delivery-1', 'gh-delivery-2', 'gh-delivery-3']);
    for (const id of ['gh-delivery-2', 'gh-delivery-3']) expect((await show(id))?.id).toBe(done.id);
    const list = (await (await fetch(`${running.url}/api/deliveries?route=prs`)).json()) as { deliveries: unknown[] };
    expect(list.deliveries).toHaveLength(1);
    const prompts = readFileSync(runs, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string);
    expect(prompts).toEqual(['review #2: third push']);
  });
});
