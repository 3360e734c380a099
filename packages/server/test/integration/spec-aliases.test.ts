// Issue 28: every stand-in spelling of the SPEC keeps working after the real names (docs/platforms.md, the
// github/gitlab sources): `deliver: platform_NN` and `codehost_a_comment`, `platforms.<alias>:` blocks, subscription
// file entries, the CLI's --deliver, and the X-CodeHostA-* / X-CodeHostB-* headers on codehost_a/codehost_b routes.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signGithub, startRecordingServer, startTestGateway, type RecordingServer, type TestGateway } from '@hookwise/testing';
import { runCli } from '../../../cli/test/cli-process';

const SECRET = 'spec-alias-secret-0123456789';

/**
 * The SPEC's delivery names (platform_01 ...) and the real deliverer each stands for, as each plugin's manifest lists
 * its aliases (docs/platforms.md, "Names", is generated from the same manifests).
 */
const { contributions } = require('../../../../scripts/plugin-manifests') as {
  contributions(kind: string): Array<{ id: string; aliases: string[] }>;
};
const PLATFORMS: Array<[alias: string, real: string]> = contributions('deliverer')
  .flatMap((c) => c.aliases.filter((alias) => /^platform_\d+$/.test(alias)).map((alias): [string, string] => [alias, c.id]))
  .sort(([a], [b]) => a.localeCompare(b));
const ALL_ALIASES = contributions('deliverer').flatMap((c) => c.aliases);

const notEnabled = (where: string, alias: string, real: string) =>
  `${where} delivers to '${alias}', which is not enabled: set platforms.${real}.enabled: true and its credentials (see the plugin's README)`;

const withRoute = (route: Record<string, unknown>, platforms: Record<string, unknown> = {}) => ({
  platforms: { webhook: { enabled: true, extra: { routes: { ops: { secret: SECRET, ...route } } } }, ...platforms },
  store: { backend: 'memory' },
});

/**
 * A block under the SPEC's key that the real deliverer refuses, and how its refusal names the block. Schema
 * problems carry the block's own key; a wrongly typed credential is used where the plugin's own "set this or
 * that" check would come first.
 */
const BLOCKS: Array<[alias: string, block: Record<string, unknown>, problem: string]> = [
  ['platform_01', {}, "must have required property 'token'"],
  ['platform_02', { token: 42 }, 'token: must be string'],
  ['platform_03', { token: 42 }, 'token: must be string'],
  ['platform_04', {}, "must have required property 'account'"],
  ['platform_05', {}, "must have required property 'account_sid'"],
  ['platform_06', {}, "must have required property 'phone_number_id'"],
  ['platform_07', {}, "must have required property 'token'"],
  ['platform_08', {}, "must have required property 'token'"],
  ['platform_09', {}, "must have required property 'token'"],
  ['platform_10', {}, "must have required property 'host'"],
  ['platform_11', {}, "must have required property 'token'"],
  ['platform_12', { app_id: 42 }, 'app_id: must be string'],
  ['platform_13', { corp_id: 42 }, 'corp_id: must be string'],
  ['platform_14', {}, "must have required property 'app_id'"],
  ['platform_15', {}, "must have required property 'password'"],
  ['codehost_a_comment', { timeout_seconds: 0 }, 'timeout_seconds: must be > 0'],
];

describe('config.yaml: the SPEC names in deliver: and as platforms.<name> blocks', () => {
  it("covers the SPEC's fifteen platform names, each with its refusal of a block below", () => {
    expect(PLATFORMS.map(([alias]) => alias)).toEqual(Array.from({ length: 15 }, (_, i) => `platform_${String(i + 1).padStart(2, '0')}`));
    expect(BLOCKS.map(([alias]) => alias).sort()).toEqual([...ALL_ALIASES].sort());
  });

  it('resolves deliver: platform_01 .. platform_15 to the real deliverers (one refusal names each real config key)', async () => {
    const refusal = startTestGateway({ config: withRoute({ deliver: PLATFORMS.map(([alias]) => alias) }) });
    const message = await refusal.then(
      (gw) => gw.stop().then(() => ''),
      (err: Error) => err.message,
    );
    for (const [alias, real] of PLATFORMS) expect(message).toContain(notEnabled("route 'ops'", alias, real));
  });

  it.each(BLOCKS)('reads platforms.%s: the real deliverer refuses the block, naming it by the SPEC key', async (alias, block, problem) => {
    const escaped = problem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    await expect(startTestGateway({ config: withRoute({ deliver: alias }, { [alias]: { enabled: true, ...block } }) })).rejects.toThrow(
      new RegExp(`platforms\\.${alias}\\b.*${escaped}`),
    );
  });
});

/** A stand-in for the code host's CLI: records its arguments and stdin, prints a comment URL. */
function fakeGh(dir: string): { path: string; calls(): string } {
  const path = join(dir, 'fake-gh');
  writeFileSync(
    path,
    `#!/bin/sh\necho "$@" >> "${join(dir, 'gh-calls.txt')}"\ncat >> "${join(dir, 'gh-calls.txt')}"\necho https://example.invalid/o/r/pull/7#issuecomment-1\n`,
  );
  chmodSync(path, 0o755);
  return { path, calls: () => readFileSync(join(dir, 'gh-calls.txt'), 'utf8') };
}

const TELEGRAM_TOKEN = '123456:spec-alias-token';

describe('subscription file entries delivering to the SPEC names', () => {
  let gw: TestGateway;
  let telegram: RecordingServer;
  let dir: string;
  let gh: ReturnType<typeof fakeGh>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookwise-spec-aliases-'));
    gh = fakeGh(dir);
    telegram = await startRecordingServer((req) =>
      req.path.endsWith('/getMe')
        ? { json: { ok: true, result: { id: 1, is_bot: true, username: 'spec_bot' } } }
        : { json: { ok: true, result: { message_id: 7 } } },
    );
    const entry = (deliver: string) => ({
      events: [],
      secret: SECRET,
      skills: [],
      deliver,
      deliver_extra: deliver === 'codehost_a_comment' ? { repo: 'o/r', pr_number: '7' } : {},
      created_at: '2025-01-01T00:00:00Z',
      updated_at: '2025-01-01T00:00:00Z',
    });
    gw = await startTestGateway({
      configDir: dir,
      config: {
        platforms: {
          webhook: { enabled: true },
          // Both enabled under their SPEC keys; the other fourteen stay off, so their entries are refused.
          platform_01: { enabled: true, token: TELEGRAM_TOKEN, home_channel: '-100123', api_base: telegram.url },
          codehost_a_comment: { cli_path: gh.path },
        },
        retry: { max_attempts: 1 },
        store: { backend: 'memory' },
      },
      files: { 'webhook_subscriptions.json': JSON.stringify(Object.fromEntries(ALL_ALIASES.map((alias) => [`sub-${alias}`, entry(alias)]))) },
    });
  });
  afterAll(async () => {
    await gw?.stop();
    await telegram?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (route: string, body = '{"action":"opened"}') =>
    gw.post(route, body, { 'x-codehosta-signature-256': signGithub(SECRET, body), 'x-codehosta-event': 'pull_request' });

  it('delivers an entry with deliver: platform_01 through the telegram deliverer', async () => {
    expect((await post('sub-platform_01')).status).toBe(202);
    await gw.waitForLog('via platform_01');
    const sent = telegram.requests.find((r) => r.path === `/bot${TELEGRAM_TOKEN}/sendMessage`);
    expect(sent?.json).toMatchObject({ chat_id: -100123 });
  });

  it('delivers an entry with deliver: codehost_a_comment through the github_comment deliverer (its CLI)', async () => {
    expect((await post('sub-codehost_a_comment')).status).toBe(202);
    await gw.waitForLog('via codehost_a_comment');
    expect(gh.calls()).toMatch(/^pr comment 7 --repo o\/r/m);
  });

  it('refuses entries for platforms that are not enabled, naming the real config key of each', async () => {
    for (const [alias, real] of PLATFORMS.slice(1)) {
      expect((await post(`sub-${alias}`)).status).toBe(404);
      expect(gw.logText()).toContain(notEnabled(`route 'sub-${alias}'`, alias, real));
    }
  });
});

describe('the CLI: hookwise webhook subscribe --deliver <SPEC name>', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hookwise-spec-cli-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const writeHome = (platforms: string) =>
    writeFileSync(join(home, 'config.yaml'), `platforms:\n  webhook:\n    enabled: true\n    extra:\n      host: 127.0.0.1\n      port: 0\n${platforms}`);

  it('stores platform_01 and codehost_a_comment as given when their blocks are enabled under the SPEC keys', async () => {
    writeHome(`  platform_01:\n    enabled: true\n    token: "${TELEGRAM_TOKEN}"\n  codehost_a_comment:\n    cli_path: gh\n`);
    const out = await runCli(['webhook', 'subscribe', 'spec', '--deliver', 'platform_01,codehost_a_comment', '--json'], home);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const stored = JSON.parse(readFileSync(join(home, 'webhook_subscriptions.json'), 'utf8')) as Record<string, { deliver: unknown }>;
    expect(stored.spec?.deliver).toEqual(['platform_01', 'codehost_a_comment']);
  });

  it('resolves every platform_NN to its real deliverer: one refusal names each real config key, nothing is written', async () => {
    writeHome('');
    const out = await runCli(['webhook', 'subscribe', 'spec', '--deliver', PLATFORMS.map(([alias]) => alias).join(',')], home);
    expect(out.code).not.toBe(0);
    for (const [alias, real] of PLATFORMS) expect(out.stderr).toContain(notEnabled("route 'spec'", alias, real));
    expect(() => readFileSync(join(home, 'webhook_subscriptions.json'))).toThrow();
  });
});

describe('the SPEC headers on codehost_a and codehost_b routes (real HTTP)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      config: withRoute(
        {},
        {
          webhook: {
            enabled: true,
            extra: {
              routes: {
                a: { secret: SECRET, source: 'codehost_a', events: ['push'] },
                b: { secret: SECRET, source: 'codehost_b', events: ['Push Hook'] },
              },
            },
          },
        },
      ),
    });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  const body = '{"ref":"refs/heads/main"}';
  const hostA = (headers: Record<string, string>, signedWith = SECRET) =>
    gw.post('a', body, { 'X-CodeHostA-Signature-256': signGithub(signedWith, body), ...headers });

  it('X-CodeHostA-Signature-256 verifies, X-CodeHostA-Event is the event type, X-CodeHostA-Delivery the delivery id', async () => {
    const accepted = await hostA({ 'X-CodeHostA-Event': 'push', 'X-CodeHostA-Delivery': 'spec-a-1' });
    expect(accepted.status).toBe(202);
    const again = await hostA({ 'X-CodeHostA-Event': 'push', 'X-CodeHostA-Delivery': 'spec-a-1' });
    expect(again).toMatchObject({ status: 200, body: { status: 'duplicate', delivery_id: 'spec-a-1' } });
    const otherEvent = await hostA({ 'X-CodeHostA-Event': 'issues', 'X-CodeHostA-Delivery': 'spec-a-2' });
    expect(otherEvent).toMatchObject({ status: 200, body: { status: 'ignored' } });
    expect((await hostA({ 'X-CodeHostA-Event': 'push', 'X-CodeHostA-Delivery': 'spec-a-3' }, 'not-the-secret')).status).toBe(401);
  });

  it('X-CodeHostB-Token verifies and X-CodeHostB-Event is the event type', async () => {
    expect((await gw.post('b', body, { 'X-CodeHostB-Token': SECRET, 'X-CodeHostB-Event': 'Push Hook' })).status).toBe(202);
    const otherEvent = await gw.post('b', body, { 'X-CodeHostB-Token': SECRET, 'X-CodeHostB-Event': 'Merge Request Hook' });
    expect(otherEvent).toMatchObject({ status: 200, body: { status: 'ignored' } });
    expect((await gw.post('b', body, { 'X-CodeHostB-Token': 'not-the-secret', 'X-CodeHostB-Event': 'Push Hook' })).status).toBe(401);
  });
});
