// A real gateway (webhook in, job, worker, agent sandbox, model proxy) running one preset's real CLI against a model
// stand-in behind the gateway's model proxy, and a GitHub API stand-in for the route's actions.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { startGateway, type RunningGateway } from '@hookwise/server';
import { loadFirstPartyPlugins } from '@hookwise/cli';
import type { Job } from '@hookwise/core';
import { githubFixture, signGithub, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import { stringify as stringifyYaml } from 'yaml';
import { CLIS_BIN } from './agent-clis';
import type { ModelStandIn } from './model-stand-ins';

/**
 * What Claude Code needs to start offline: no update check, no telemetry, no other traffic than the model's; and
 * MCP tools offered up front (by default it defers them behind its ToolSearch tool, which a scripted model cannot
 * go through).
 */
export const CLAUDE_OFFLINE = [
  'DISABLE_AUTOUPDATER=1',
  'DISABLE_TELEMETRY=1',
  'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1',
  'DISABLE_ERROR_REPORTING=1',
  'ENABLE_TOOL_SEARCH=false',
];

/** The gateway's model keys: the stand-ins must receive them, the CLIs never. */
export const ANTHROPIC_KEY = 'sk-ant-standin-key-1234567890';
export const OPENAI_KEY = 'sk-openai-standin-key-1234567890';

export interface GatewayRun {
  dir: string;
  home: string;
  logs(): string;
  github: RecordingServer;
  running?: RunningGateway;
  /**
   * Starts the gateway with one route `ci` running `agent` (preset, args, ...) and `route` keys, and `platforms`
   * besides the webhook one.
   */
  start(
    agent: Record<string, unknown>,
    route?: Record<string, unknown>,
    env?: Record<string, string>,
    platforms?: Record<string, unknown>,
  ): Promise<RunningGateway>;
  /**
   * Posts `payload` to the route (with `headers`) and waits for the job of delivery id `job` (default `id`) to end,
   * done or dead, at most `timeoutMs` (60 s).
   */
  post(payload: unknown, id: string, options?: { timeoutMs?: number; headers?: Record<string, string>; job?: string }): Promise<Job>;
  close(): Promise<void>;
}

export async function gatewayRun(model: ModelStandIn, dataDir: string): Promise<GatewayRun> {
  const dir = mkdtempSync(join(tmpdir(), 'hw-real-cli-config-'));
  // The gateway user's home, where an operator's own ~/.claude and ~/.codex would be.
  const home = mkdtempSync(join(tmpdir(), 'hw-real-cli-home-'));
  mkdirSync(dataDir, { recursive: true });
  const github = await startRecordingServer(() => ({ status: 200, json: [{ name: 'bug' }] }));
  let logs = '';
  const run: GatewayRun = {
    dir,
    home,
    github,
    logs: () => logs,
    async start(agent, route = {}, env = {}, platforms = {}) {
      const config = {
        platforms: {
          ...platforms,
          webhook: { enabled: true, extra: { host: '127.0.0.1', routes: { ci: { secret: 'INSECURE_NO_AUTH', deliver: 'none', ...route } } } },
        },
        agent: {
          runner: 'command',
          timeout_seconds: 60,
          ...agent,
          // The GitHub stand-in is the only host of ours the sandbox lets the CLI reach (through the gateway's egress
          // proxy); the model only through the gateway's model proxy, whose address the run's session adds.
          sandbox: {
            mode: 'required',
            network: [github.url.replace('http://', ''), ...((agent.sandbox as { network?: string[] } | undefined)?.network ?? [])],
          },
        },
        retry: { max_attempts: 3, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
        store: { backend: 'memory' },
      };
      writeFileSync(join(dir, 'config.yaml'), stringifyYaml(config));
      const stream = new PassThrough();
      stream.on('data', (c: Buffer) => (logs += c.toString('utf8')));
      run.running = await startGateway({
        firstParty: await loadFirstPartyPlugins(),
        configDir: dir,
        env: {
          // The CLIs as a user's PATH has them, then the system.
          PATH: [CLIS_BIN, '/usr/bin', '/bin'].join(':'),
          HOME: home,
          HOOKWISE_DATA_DIR: dataDir,
          // The model stand-in is the model proxy's upstream (its base_url defaults to these), and the keys are the
          // gateway's: the CLIs get the proxy's URL and a per-run token instead (agent.model_proxy.enabled unset).
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: ANTHROPIC_KEY,
          OPENAI_BASE_URL: `${model.url}/v1`,
          OPENAI_API_KEY: OPENAI_KEY,
          GH_TOKEN: 'ghp_standin_token_1234567890',
          GITHUB_API_URL: github.url,
          ...env,
        },
        port: 0,
        logStream: stream,
        pollMs: 25,
      });
      return run.running;
    },
    async post(payload, id, { timeoutMs = 60_000, headers = {}, job: jobId = id } = {}) {
      const gw = run.running!;
      const res = await fetch(`${gw.url}/webhooks/ci`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': id, ...headers },
        body: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
      if (res.status !== 202) throw new Error(`the webhook answered ${res.status}: ${await res.text()}\n${logs}`);
      for (const until = Date.now() + timeoutMs; Date.now() < until;) {
        const job = (await gw.gateway.store.jobs.list({ limit: 50 })).find((j) => j.deliveryId === jobId);
        if (job && (job.status === 'done' || job.status === 'dead')) return job;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`the job did not end; log:\n${logs}`);
    },
    async close() {
      await run.running?.close(1000);
      await github.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
  return run;
}

/**
 * A conversation on a GitHub pull request, for resuming the CLI's session on a reply: the route answers a signed
 * pull_request event with a comment through a `gh` stand-in (it records the call and prints the comment's URL, as gh
 * does), and a signed issue_comment on that pull request by a member continues the conversation.
 */
export function githubConversation(dir: string): {
  platforms: Record<string, unknown>;
  route: Record<string, unknown>;
  comments(): Array<{ args: string[]; body: string }>;
  opened(): { body: string; headers: Record<string, string> };
  reply(text: string): { body: string; headers: Record<string, string> };
} {
  const secret = 'real-cli-conversation-secret-0123456789';
  const gh = join(dir, 'gh');
  const calls = join(dir, 'gh-calls.jsonl');
  writeFileSync(
    gh,
    `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
let body = '';
process.stdin.on('data', (c) => (body += c)).on('end', () => {
  fs.appendFileSync(${JSON.stringify(calls)}, JSON.stringify({ args, body }) + '\\n');
  process.stdout.write('https://github.com/Codertocat/Hello-World/pull/' + args[2] + '#issuecomment-' + (900 + Math.floor(Math.random() * 1000)) + '\\n');
});
`,
    { mode: 0o755 },
  );
  let n = 0;
  const signed = (event: string, body: string) => ({
    body,
    headers: { 'x-github-event': event, 'x-github-delivery': `real-cli-${event}-${++n}`, 'x-hub-signature-256': signGithub(secret, body) },
  });
  return {
    platforms: { github_comment: { enabled: true, cli_path: gh, timeout_seconds: 20 } },
    route: {
      source: 'github',
      secret,
      events: ['pull_request', 'issue_comment'],
      prompt: 'Review PR #{pull_request.number}: {pull_request.title}',
      deliver: 'github_comment',
      deliver_extra: { repo: '{repository.full_name}', pr_number: '{pull_request.number}' },
      conversation: { enabled: true, allow_from: ['association:MEMBER'] },
    },
    comments: () =>
      existsSync(calls)
        ? readFileSync(calls, 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as { args: string[]; body: string })
        : [],
    opened: () => signed('pull_request', githubFixture('pull_request.opened').toString('utf8')),
    reply(text) {
      const payload = JSON.parse(githubFixture('issue_comment.created.pull_request').toString('utf8')) as {
        issue: Record<string, unknown> & { pull_request: Record<string, unknown> };
        comment: Record<string, unknown> & { user: Record<string, unknown> };
        sender: Record<string, unknown>;
      };
      payload.issue.number = 2;
      payload.issue.html_url = 'https://github.com/Codertocat/Hello-World/pull/2';
      payload.issue.pull_request.url = 'https://api.github.com/repos/Codertocat/Hello-World/pulls/2';
      Object.assign(payload.comment, { id: 5000 + n, body: text, author_association: 'MEMBER' });
      Object.assign(payload.comment.user, { login: 'octo-member', type: 'User' });
      Object.assign(payload.sender, { login: 'octo-member', type: 'User' });
      return signed('issue_comment', JSON.stringify(payload));
    },
  };
}
