// Errors are printed unwrapped (issue 35 item 9): oclif hard-wrapped them at the terminal width (80 columns when
// stderr is a pipe), which cut `platforms.webhook.extra.secret` and the commands a user copies in two.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempHome } from '../cli-process';

jest.setTimeout(60_000);

let dir: string;
beforeAll(() => {
  dir = tempHome();
  writeFileSync(
    join(dir, 'config.yaml'),
    'platforms:\n  webhook:\n    enabled: true\n    extra:\n      host: 127.0.0.1\n      port: 0\n      routes:\n        demo:\n          events: [push]\nstore:\n  backend: memory\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('error output', () => {
  it.each(['60', ''])('keeps each line of the message whole (OCLIF_COLUMNS=%p)', async (columns) => {
    const result = await runCli(['gateway', 'run'], dir, { OCLIF_COLUMNS: columns });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "route 'demo' has no secret: set `secret` on the route or `platforms.webhook.extra.secret` (or WEBHOOK_SECRET), or INSECURE_NO_AUTH for local testing",
    );
    expect(result.stderr).toMatch(/^ › {3}Error: the gateway cannot start:$/m);
    expect(result.stderr).toMatch(/^ › {3}Code: HW_E_CONFIG$/m);
  });

  it('a mistyped flag still exits 2 with its suggestion', async () => {
    const result = await runCli(['routes', 'list', '--wdie'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Nonexistent flag: --wdie \(did you mean --wide\?\)/);
  });
});
