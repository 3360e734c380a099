// Tool output on its way to a model loses the gateway's secrets (issue 29: "and from tool output"): a terminal
// command that prints a token it found, and an MCP tool result, reach the model with the token replaced.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestPluginContext } from '@hookwise/testing';
import { terminalSettings, terminalTool } from '../../src/terminal-tool';

const TOKEN = '123456789:AAEtoolOutputTokenForTheTest-0123';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hw-tool-scrub-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('terminal tool output', () => {
  it('replaces every registered secret, also base64-encoded, before the model reads it', async () => {
    const { ctx } = createTestPluginContext({ configDir: join(dir, 'config'), env: { PATH: process.env.PATH } });
    ctx.redact(TOKEN);
    const settings = terminalSettings({ timeout_seconds: 10, max_output_bytes: 4096, env: [], cwd: dir }, ctx, []);
    const b64 = Buffer.from(TOKEN).toString('base64');
    const out = await terminalTool(settings).run({ command: `echo found ${TOKEN}; echo encoded ${b64}` }, new AbortController().signal);
    expect(out.content).toContain('found [REDACTED]');
    expect(out.content).not.toContain(TOKEN);
    expect(out.content).not.toContain(b64);
  });

  it('replaces the value of a credential-named variable of the gateway’s environment, registered nowhere, also as hex', async () => {
    const key = 'env-only-credential-5e6f7a8b';
    const { ctx } = createTestPluginContext({ configDir: join(dir, 'config'), env: { PATH: process.env.PATH, DEPLOY_API_KEY: key } });
    // Not even the context's scrub knows it: core's credential rule in the terminal settings does.
    const settings = terminalSettings({ timeout_seconds: 10, max_output_bytes: 4096, env: [], cwd: dir }, { ...ctx, scrub: undefined }, []);
    const hex = Buffer.from(key).toString('hex');
    const out = await terminalTool(settings).run({ command: `echo found ${key}; echo hex ${hex}` }, new AbortController().signal);
    expect(out.content).toContain('found [REDACTED]');
    expect(out.content).toContain('hex [REDACTED]');
    expect(out.content).not.toContain(key);
    expect(out.content).not.toContain(hex);
  });

  it('leaves output alone where the gateway gives no scrubber (an older gateway)', async () => {
    const { ctx } = createTestPluginContext({ configDir: join(dir, 'config'), env: { PATH: process.env.PATH } });
    const settings = terminalSettings({ timeout_seconds: 10, max_output_bytes: 4096, env: [], cwd: dir }, { ...ctx, scrub: undefined }, []);
    const out = await terminalTool(settings).run({ command: 'echo plain text' }, new AbortController().signal);
    expect(out.content).toContain('plain text');
  });
});
