// The opencode preset on the model proxy, at the level of the run's plan: the environment the CLI is started with
// holds no real key, and OPENCODE_CONFIG names a file in the route's private home that points opencode's anthropic,
// openai and google providers at the proxy with the run's token (by reference, never the key). The run's sandbox is a
// stand-in that changes the environment as the gateway's proxy session does (packages/gateway/src/model-proxy/
// proxy-session.ts) and starts a real process; the real bubblewrap run is in test/integration/opencode-proxy.test.ts.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createLogger, PluginRegistry, Redactor } from '@hookwise/gateway';
import type { AgentSandbox, AgentTask, PluginContext } from '@hookwise/core';
import plugin, { createCommandRunner, type CommandRunnerOptions } from '@hookwise/plugin-agent-command';

const REAL = { ANTHROPIC_API_KEY: 'sk-ant-real-gateway-key', OPENAI_API_KEY: 'sk-real-openai-key', GEMINI_API_KEY: 'AIza-real-gemini-key' };
const PROXY = 'http://127.0.0.1:45999';
const TOKEN = 'hwp_run-token-0123456789';
// What opencode prints for one answer (`run --format json`): enough for the preset to read an answer.
const CLI = `process.stdin.resume(); process.stdin.on('end', () => process.stdout.write(JSON.stringify({ type: 'text', part: { text: 'ok' } }) + '\\n'));`;

let dir: string;
let data: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-opencode-plan-'));
  data = mkdtempSync(join(tmpdir(), 'hw-opencode-data-'));
});
afterEach(() => {
  for (const d of [dir, data]) rmSync(d, { recursive: true, force: true });
});

async function planOf(env: Record<string, string>, agent: Record<string, unknown> = {}): Promise<NodeJS.ProcessEnv> {
  const registry = new PluginRegistry([{ plugin, source: 'test', options: {} }]);
  const { options, problems } = registry.validateOptions('agent', 'command', { preset: 'opencode', command: [process.execPath, '-e', CLI], ...agent }, 'agent');
  expect(problems).toEqual([]);
  const redactor = new Redactor();
  const ctx: PluginContext = {
    logger: createLogger({ stream: new PassThrough(), redactor, level: 'debug' }),
    configDir: dir,
    env: { PATH: process.env.PATH, HOOKWISE_DATA_DIR: data, ...REAL, ...env },
    signal: new AbortController().signal,
    redact: (s) => redactor.add(s),
  };
  const runner = createCommandRunner(options as unknown as CommandRunnerOptions, ctx);
  const plans: NodeJS.ProcessEnv[] = [];
  const sandbox: AgentSandbox = {
    mode: 'off',
    sandboxed: false,
    reason: 'plan test',
    workDir: dir,
    plan(command, args, planEnv) {
      const clean = { ...planEnv };
      for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY']) delete clean[name];
      const proxied = {
        ...clean,
        HOOKWISE_MODEL_PROXY_URL: PROXY,
        HOOKWISE_MODEL_PROXY_TOKEN: TOKEN,
        ANTHROPIC_BASE_URL: PROXY,
        ANTHROPIC_API_KEY: TOKEN,
        OPENAI_BASE_URL: `${PROXY}/v1`,
        OPENAI_API_KEY: TOKEN,
        GOOGLE_GEMINI_BASE_URL: PROXY,
        GEMINI_API_KEY: TOKEN,
      };
      plans.push(proxied);
      return { command, args: [...args], env: proxied, cwd: dir };
    },
    spawn: () => {
      throw new Error('not used');
    },
    onClose: () => undefined,
  };
  const task: AgentTask = { prompt: 'hi', skills: [], route: 'ci', event: 'push', deliveryId: 'd-1', sandbox };
  const result = await runner.run(task, { signal: new AbortController().signal });
  expect(result.text).toBe('ok');
  return plans[plans.length - 1];
}

function configAt(file: string): { provider: Record<string, { options: Record<string, string> } & Record<string, unknown>> } & Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as never;
}

describe('the opencode preset on the model proxy', () => {
  it('starts opencode with no real key and OPENCODE_CONFIG naming a private-home file that points its providers at the proxy with the run token', async () => {
    const env = await planOf({});
    for (const key of Object.values(REAL)) expect(Object.values(env)).not.toContain(key);
    const file = join(data, 'agent-homes', 'ci', 'opencode', '.hookwise', 'opencode.json');
    expect(env.OPENCODE_CONFIG).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    for (const key of Object.values(REAL)) expect(text).not.toContain(key);
    expect(text).not.toContain(TOKEN);
    expect(configAt(file)).toEqual({
      provider: {
        anthropic: { options: { baseURL: `${PROXY}/v1`, apiKey: '{env:HOOKWISE_MODEL_PROXY_TOKEN}' } },
        openai: { options: { baseURL: `${PROXY}/v1`, apiKey: '{env:HOOKWISE_MODEL_PROXY_TOKEN}' } },
        google: { options: { baseURL: `${PROXY}/v1beta`, apiKey: '{env:HOOKWISE_MODEL_PROXY_TOKEN}' } },
      },
    });
    // The variable the apiKey names is the run's token, which opencode substitutes when it loads the file.
    expect(env.HOOKWISE_MODEL_PROXY_TOKEN).toBe(TOKEN);
  });

  it("takes the operator's OPENCODE_CONFIG as the base and replaces only the proxied providers' baseURL and apiKey", async () => {
    const operator = join(dir, 'operator-opencode.json');
    writeFileSync(
      operator,
      JSON.stringify({
        model: 'anthropic/claude-sonnet-4-5',
        provider: {
          anthropic: { options: { baseURL: 'https://llm.example.com/v1', apiKey: 'sk-ant-in-the-file', timeout: 600000 }, whitelist: ['claude-sonnet-4-5'] },
          openrouter: { options: { apiKey: '{env:OPENROUTER_API_KEY}' } },
        },
      }),
    );
    const env = await planOf({ OPENCODE_CONFIG: operator });
    expect(env.OPENCODE_CONFIG).not.toBe(operator);
    const config = configAt(env.OPENCODE_CONFIG!);
    expect(config.model).toBe('anthropic/claude-sonnet-4-5');
    expect(config.provider.anthropic).toEqual({
      options: { baseURL: `${PROXY}/v1`, apiKey: '{env:HOOKWISE_MODEL_PROXY_TOKEN}', timeout: 600000 },
      whitelist: ['claude-sonnet-4-5'],
    });
    expect(config.provider.openrouter).toEqual({ options: { apiKey: '{env:OPENROUTER_API_KEY}' } });
  });

  it('fails the run without retry, naming the file, when the operator OPENCODE_CONFIG is not plain JSON', async () => {
    const operator = join(dir, 'operator-opencode.jsonc');
    writeFileSync(operator, '{\n  // comments are JSONC\n  "model": "openai/gpt-5"\n}\n');
    const failure = await planOf({ OPENCODE_CONFIG: operator }).then(
      () => undefined,
      (err: Error & { retryable?: boolean }) => err,
    );
    expect(failure?.message).toContain(`OPENCODE_CONFIG (${operator}) could not be read as JSON`);
    expect(failure?.retryable).toBe(false);
    // The preset's own message, not the runner's advice for a program that is not installed.
    expect(failure?.message).not.toContain('could not be started');
    expect(failure?.message).not.toContain('check that it is installed');
  });
});
