// `login_from` (a CLI's subscription login instead of an API key) inside a real gateway and its bubblewrap sandbox:
// the run reads a copy of the operator's login file, alone, in its private home, and nothing it does changes the
// copy or the operator's file; the rest of the operator's home stays out of sight. The agent is a stand-in for
// Claude Code (the claude preset with `command:` replaced) that reports what it could do.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from '@hookwise/core';
import { gatewayOnce, type GatewayOnce } from './gateway-once';

let dir: string;
let tools: string;
let operator: string;
let data: string;

const LOGIN = JSON.stringify({
  claudeAiOauth: { accessToken: 'sk-ant-oat01-operator-login-token', refreshToken: 'sk-ant-ort01-refresh', expiresAt: 4102444800000 },
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-login-config-'));
  tools = mkdtempSync(join(tmpdir(), 'hw-login-tools-'));
  data = mkdtempSync(join(tmpdir(), 'hw-login-data-'));
  // The operator's home: their Claude login, their settings and a canary beside it.
  operator = mkdtempSync(join(tmpdir(), 'hw-login-operator-'));
  mkdirSync(join(operator, '.claude'), { mode: 0o700 });
  writeFileSync(join(operator, '.claude', '.credentials.json'), LOGIN, { mode: 0o600 });
  writeFileSync(join(operator, '.claude', 'settings.json'), '{"model":"operator-model"}');
  writeFileSync(join(operator, 'canary.txt'), 'operator-canary-7731');
});

afterEach(async () => {
  await gateway?.running.close(1000);
  gateway = undefined;
  for (const d of [dir, tools, data, operator]) rmSync(d, { recursive: true, force: true });
});

// What a prompt-injected agent would try with the login it finds: read it, write it, replace it, free it; and look
// for more of the operator's home. It answers as Claude Code's JSON output does.
const AGENT = `
const fs = require('fs');
const path = require('path');
const attempt = (f) => { try { const r = f(); return r === undefined ? 'done' : r; } catch (err) { return 'refused: ' + err.code; } };
const login = path.join(process.env.HOME, '.claude', '.credentials.json');
const operator = process.argv[2];
process.stdin.resume();
process.stdin.on('end', () => {
  const seen = {
    home: process.env.HOME,
    read: attempt(() => fs.readFileSync(login, 'utf8')),
    write: attempt(() => fs.writeFileSync(login, 'changed by the agent')),
    append: attempt(() => fs.appendFileSync(login, 'more')),
    chmod: attempt(() => fs.chmodSync(login, 0o600)),
    rename: attempt(() => fs.renameSync(login, login + '.moved')),
    unlink: attempt(() => fs.unlinkSync(login)),
    claudeDir: attempt(() => fs.readdirSync(path.dirname(login)).sort()),
    operatorHome: attempt(() => fs.readdirSync(operator)),
    operatorLogin: attempt(() => fs.readFileSync(path.join(operator, '.claude', '.credentials.json'), 'utf8')),
    canary: attempt(() => fs.readFileSync(path.join(operator, 'canary.txt'), 'utf8')),
  };
  process.stdout.write(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: JSON.stringify(seen), session_id: 'standin-session' }));
});
`;

let gateway: GatewayOnce | undefined;

async function runOnce(agent: Record<string, unknown>, env: Record<string, string> = {}): Promise<Job> {
  const script = join(tools, 'agent.js');
  writeFileSync(script, AGENT);
  const config = {
    platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', routes: { ci: { secret: 'INSECURE_NO_AUTH' } } } } },
    agent: { runner: 'command', preset: 'claude', command: [process.execPath, script, operator], sandbox: { mode: 'required', read_only: [tools] }, ...agent },
    retry: { max_attempts: 2, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
    store: { backend: 'memory' },
  };
  // The gateway runs as the operator: HOME is their home, where `~` in login_from points.
  gateway = await gatewayOnce(dir, config, { PATH: process.env.PATH, HOME: operator, HOOKWISE_DATA_DIR: data, ...env });
  return gateway.post('login-1');
}

const privateCopy = () => join(data, 'agent-homes', 'ci', 'claude', '.claude', '.credentials.json');

describe('login_from: a subscription login for the claude preset', () => {
  it("gives the run a read-only copy of the operator's login file alone, in its private home; the operator's file stays as it was", async () => {
    const job = await runOnce({ login_from: '~' });
    expect(job.status).toBe('done');
    const seen = JSON.parse(job.answer!) as Record<string, unknown>;
    expect(seen.home).toBe(join(data, 'agent-homes', 'ci', 'claude'));
    expect(seen.read).toBe(LOGIN);
    // Bound read-only over the writable home: not written, not replaced, not freed.
    // (The kernel checks the file's mode, 0400, or the mount first, depending on the call.)
    expect(seen.write).toMatch(/^refused: (EROFS|EACCES)$/);
    expect(seen.append).toMatch(/^refused: (EROFS|EACCES)$/);
    // Its owner could chmod a file in a writable dir: the mount is what stops it.
    expect(seen.chmod).toBe('refused: EROFS');
    expect(seen.rename).toBe('refused: EBUSY');
    expect(seen.unlink).toBe('refused: EBUSY');
    // The login file alone: not the operator's settings, nothing else of their home.
    expect(seen.claudeDir).toEqual(['.credentials.json']);
    expect(seen.operatorHome).toBe('refused: ENOENT');
    expect(seen.operatorLogin).toBe('refused: ENOENT');
    expect(seen.canary).toBe('refused: ENOENT');
    expect(readFileSync(join(operator, '.claude', '.credentials.json'), 'utf8')).toBe(LOGIN);
    expect(statSync(join(operator, '.claude', '.credentials.json')).mode & 0o777).toBe(0o600);
    expect(readFileSync(privateCopy(), 'utf8')).toBe(LOGIN);
    expect(statSync(privateCopy()).mode & 0o777).toBe(0o400);
  });

  it('copies the login afresh for every run, so a login the operator renewed reaches the next run', async () => {
    await runOnce({ login_from: operator });
    const renewed = LOGIN.replace('operator-login-token', 'renewed-login-token');
    chmodSync(join(operator, '.claude', '.credentials.json'), 0o600);
    writeFileSync(join(operator, '.claude', '.credentials.json'), renewed);
    const second = await gateway!.post('login-2');
    expect(JSON.parse(second.answer!).read).toBe(renewed);
  });

  it('gives no copy to a run the model proxy serves (the gateway holds ANTHROPIC_API_KEY): the CLI has the proxy token', async () => {
    const job = await runOnce({ login_from: '~' }, { ANTHROPIC_API_KEY: 'sk-ant-gateway-key-1234567890' });
    expect(job.status).toBe('done');
    const seen = JSON.parse(job.answer!) as Record<string, unknown>;
    expect(seen.read).toBe('refused: ENOENT');
    expect(existsSync(privateCopy())).toBe(false);
  });

  it("fails the run without retry, saying how to log in, when the operator's login file is missing", async () => {
    rmSync(join(operator, '.claude'), { recursive: true, force: true });
    const job = await runOnce({ login_from: '~' });
    expect(job.status).toBe('dead');
    expect(job.attempts).toBe(1);
    expect(job.errors.map((e) => e.message).join('\n')).toContain(
      `agent.login_from: ${join(operator, '.claude', '.credentials.json')} does not exist: run \`claude\` and log in with /login on this machine as the gateway's user`,
    );
  });

  it('refuses login_from for a preset without a subscription login, at startup', async () => {
    await expect(runOnce({ preset: 'gemini', login_from: '~' })).rejects.toThrow(
      /agent\.login_from is for the presets whose CLI logs in with a subscription \(claude, codex\), not preset 'gemini'/,
    );
  });
});
