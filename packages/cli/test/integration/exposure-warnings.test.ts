// Settings that start fine but let someone other than the operator decide (issue 34): the admin API, the dashboard
// or /metrics without a token on a non-loopback bind, and a chat_id filled from the payload on a platform without
// allowed_targets. The gateway's startup log warns about each, and `hookwise doctor` lists them as warnings.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closedPort, runCli, tempHome } from '../cli-process';
import { startCli } from '../long-running';

jest.setTimeout(120_000);

const homes: string[] = [];
afterAll(() => {
  for (const dir of homes) rmSync(dir, { recursive: true, force: true });
});

interface Options {
  host: string;
  adminToken?: string;
  metricsToken?: string;
  allowedTargets?: string[];
  chatId: string;
}

async function configDir(o: Options): Promise<string> {
  const dir = tempHome();
  homes.push(dir);
  const unreachable = await closedPort();
  writeFileSync(
    join(dir, 'config.yaml'),
    [
      'platforms:',
      '  webhook:',
      '    enabled: true',
      '    extra:',
      `      host: "${o.host}"`,
      '      port: 0',
      '      secret: exposure-test-secret-0123456789',
      '      routes:',
      '        alerts:',
      '          deliver: telegram',
      '          deliver_extra:',
      `            chat_id: "${o.chatId}"`,
      '  telegram:',
      '    enabled: true',
      '    token: "123456:exposure-test-token"',
      `    api_base: http://127.0.0.1:${unreachable}`,
      ...(o.allowedTargets ? [`    allowed_targets: ${JSON.stringify(o.allowedTargets)}`] : []),
      'admin:',
      '  enabled: true',
      '  ui: true',
      ...(o.adminToken ? [`  token: ${o.adminToken}`] : []),
      'metrics:',
      '  enabled: true',
      ...(o.metricsToken ? [`  token: ${o.metricsToken}`] : []),
      'store:',
      '  backend: memory',
      '',
    ].join('\n'),
  );
  return dir;
}

interface Check {
  check: string;
  status: string;
  detail: string;
  fix?: string;
}

async function doctorChecks(dir: string): Promise<Check[]> {
  const result = await runCli(['doctor', '--json'], dir);
  return (JSON.parse(result.stdout) as { checks: Check[] }).checks;
}

describe('exposure findings', () => {
  it('doctor warns about token-less operator surfaces on 0.0.0.0 and a payload-chosen chat_id without allowed_targets', async () => {
    const dir = await configDir({ host: '0.0.0.0', chatId: '{message.chat.id}' });
    const checks = await doctorChecks(dir);
    const admin = checks.find((c) => c.check === 'admin');
    expect(admin).toMatchObject({ status: 'warn' });
    expect(admin?.detail).toMatch(/admin API \(\/api\) and the dashboard \(\/ui\) run without admin\.token while the gateway binds 0\.0\.0\.0/);
    expect(admin?.fix).toMatch(/HOOKWISE_ADMIN_TOKEN/);
    const metrics = checks.find((c) => c.check === 'metrics');
    expect(metrics).toMatchObject({ status: 'warn' });
    expect(metrics?.detail).toMatch(/\/metrics runs without metrics\.token/);
    const route = checks.filter((c) => c.check === "route 'alerts'" && c.status === 'warn');
    expect(route.map((c) => c.detail).join('\n')).toMatch(
      /deliver_extra\.chat_id "\{message\.chat\.id\}" is filled from the webhook payload and platforms\.telegram has no allowed_targets/,
    );
    expect(route.map((c) => c.fix).join('\n')).toMatch(/platforms\.telegram\.allowed_targets/);
  });

  it('finds nothing with tokens set, allowed_targets listed, or on loopback with a fixed chat_id', async () => {
    const guarded = await configDir({
      host: '0.0.0.0',
      adminToken: 'admin-token-0123456789abcdef',
      metricsToken: 'metrics-token-0123456789abcdef',
      chatId: '{message.chat.id}',
      allowedTargets: ['-1001234567890'],
    });
    const local = await configDir({ host: '127.0.0.1', chatId: '-1001234567890' });
    for (const dir of [guarded, local]) {
      const checks = await doctorChecks(dir);
      expect(checks.map((c) => c.check)).not.toEqual(expect.arrayContaining(['admin']));
      expect(checks.map((c) => c.check)).not.toEqual(expect.arrayContaining(['metrics']));
      expect(checks.filter((c) => /allowed_targets/.test(c.detail))).toEqual([]);
    }
  });

  it("the gateway's startup log warns about each", async () => {
    const dir = await configDir({ host: '0.0.0.0', chatId: '{message.chat.id}' });
    const gateway = startCli(['gateway', 'run'], dir);
    try {
      await gateway.waitFor(/has no allowed_targets/, 60_000);
      const output = gateway.output();
      expect(output).toMatch(/the admin API \(\/api\) and the dashboard \(\/ui\) run without admin\.token while the gateway binds 0\.0\.0\.0/);
      expect(output).toMatch(/\/metrics runs without metrics\.token while the gateway binds 0\.0\.0\.0/);
      expect(output).toMatch(/route 'alerts': deliver_extra\.chat_id "\{message\.chat\.id\}" is filled from the webhook payload/);
    } finally {
      await gateway.stop();
    }
  });
});
