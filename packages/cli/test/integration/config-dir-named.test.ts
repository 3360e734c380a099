// A second terminal without the HOOKWISE_HOME export reads another config dir: every command that finds nothing
// says which dir it read and what chose it ($HOOKWISE_HOME, --config-dir or the default), --json errors too.
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_BIN, runCli, tempHome, type CliResult } from '../cli-process';
import { testProcessEnv } from '@hookwise/testing';

jest.setTimeout(120_000);

const plain = (text: string) => text.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ');

/** The CLI in a shell where HOOKWISE_HOME was never exported (HOME points at a fresh dir). */
function runWithoutExport(args: string[], userHome: string): Promise<CliResult> {
  const env = testProcessEnv(undefined, { HOME: userHome, OCLIF_COLUMNS: '1000' });
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_BIN, ...args], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

let home: string;
let userHome: string;
beforeAll(() => {
  home = tempHome();
  userHome = tempHome('hookwise-user-');
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(userHome, { recursive: true, force: true });
});

describe('commands that find nothing name the config dir', () => {
  it('webhook list, from $HOOKWISE_HOME, from --config-dir and by default', async () => {
    const fromEnv = await runCli(['webhook', 'list'], home);
    expect(fromEnv.stdout).toContain(`No subscriptions yet in ${home} (from $HOOKWISE_HOME).`);
    const fromFlag = await runCli(['webhook', 'list', '--config-dir', home], userHome);
    expect(fromFlag.stdout).toContain(`No subscriptions yet in ${home} (from --config-dir).`);
    const byDefault = await runWithoutExport(['webhook', 'list'], userHome);
    expect(byDefault.stdout).toContain(`No subscriptions yet in ${join(userHome, '.hookwise')} (the default: $HOOKWISE_HOME is not set here).`);
  });

  it('webhook test of an unknown route names the dir, and --json carries it', async () => {
    const text = await runCli(['webhook', 'test', 'alerts'], home);
    expect(text.code).toBe(1);
    expect(plain(text.stderr)).toContain(`no subscription or static route named 'alerts' in ${home} (from $HOOKWISE_HOME)`);
    const json = await runCli(['webhook', 'test', 'alerts', '--json'], home);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { config_dir: home, config_dir_from: '$HOOKWISE_HOME' } });
  });

  it('deliveries list, routes list and deliveries show: text and --json', async () => {
    const deliveries = await runCli(['deliveries', 'list'], home);
    expect(deliveries.stdout).toContain(`No deliveries match in ${home} (from $HOOKWISE_HOME).`);
    const json = await runCli(['deliveries', 'list', '--json'], home);
    expect(JSON.parse(json.stdout)).toEqual([]);
    expect(json.stderr).toContain(`No deliveries match in ${home}`);
    const routes = await runCli(['routes', 'list'], home);
    expect(routes.stdout).toContain(`No routes yet in ${home} (from $HOOKWISE_HOME).`);
    const show = await runCli(['deliveries', 'show', 'nosuchid', '--json'], home);
    expect(JSON.parse(show.stdout)).toMatchObject({ error: { config_dir: home, config_dir_from: '$HOOKWISE_HOME' } });
    expect(JSON.parse(show.stdout).error.message).toContain(`Config dir: ${home} (from $HOOKWISE_HOME)`);
  });
});
