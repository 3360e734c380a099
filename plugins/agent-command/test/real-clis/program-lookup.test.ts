// How the gateway finds a preset's CLI at startup: a missing one stops a gateway whose sandbox is required (before
// any event), and one installed under a user prefix (~/.local/bin) is found, its version logged, and it runs in
// the sandbox.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayRun, type GatewayRun } from './gateway-run';
import { anthropicStandIn, type ModelStandIn } from './model-stand-ins';

jest.setTimeout(60_000);

let model: ModelStandIn;
let run: GatewayRun;
let data: string;

beforeEach(async () => {
  model = await anthropicStandIn();
  data = mkdtempSync(join(tmpdir(), 'hw-real-cli-data-'));
  run = await gatewayRun(model, data);
});

afterEach(async () => {
  await run.close();
  await model.close();
  rmSync(data, { recursive: true, force: true });
});

describe('finding the preset CLI', () => {
  it('refuses to start a gateway with sandbox mode required when the CLI is not installed, naming the install command', async () => {
    await expect(run.start({ preset: 'codex' }, {}, { PATH: '/usr/bin:/bin' })).rejects.toThrow(
      /route 'ci': the agent program 'codex' is not on PATH nor in .*install it \(npm install -g @openai\/codex\)/s,
    );
  });

  it('finds a CLI under ~/.local/bin (not on PATH), logs its version, and runs it inside the sandbox', async () => {
    const bin = join(run.home, '.local', 'bin');
    mkdirSync(bin, { recursive: true });
    // A Claude Code look-alike: prints its version, or the result object with where it ran.
    writeFileSync(
      join(bin, 'claude'),
      `#!/bin/sh
if [ "$1" = "--version" ]; then echo "9.9.9 (Claude Code)"; exit 0; fi
cat >/dev/null
printf '{"type":"result","subtype":"success","is_error":false,"result":"ran as %s in %s","session_id":"s-1"}' "$HOME" "$PWD"
`,
    );
    chmodSync(join(bin, 'claude'), 0o755);
    await run.start({ preset: 'claude' }, {}, { PATH: '/usr/bin:/bin' });
    expect(run.logs()).toContain(`route 'ci': agent program ${join(bin, 'claude')} (9.9.9 (Claude Code))`);
    const job = await run.post({}, 'prefix-1');
    expect(job.status).toBe('done');
    expect(job.answer).toBe(`ran as ${join(data, 'agent-homes', 'ci', 'claude')} in ${job.answer!.split(' in ')[1]}`);
    expect(job.answer).toMatch(/ in \/tmp\/hookwise-job-/);
    expect(job.usage).toMatchObject({ sandbox: { sandboxed: true } });
  });
});
