// User docs speak of real names: the SPEC and its stand-in names appear only in docs/platforms.md's Compatibility
// section; the README names the fifteen platforms; the dashboard's sign-in says where the admin token is.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');
// Engineers' pages (architecture, performance, security) describe the SPEC's rules on purpose.
const INTERNAL = new Set(['architecture.md', 'performance.md', 'security.md']);

function userDocs(): Array<[string, string]> {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md') && !INTERNAL.has(file))
    .map((file) => [`docs/${file}`, readFileSync(join(ROOT, 'docs', file), 'utf8')] as [string, string]);
  return [['README.md', readFileSync(join(ROOT, 'README.md'), 'utf8')], ...docs];
}

/** The text without docs/platforms.md's "## Compatibility" section (up to the next `## `). */
function outsideCompatibility(text: string): string {
  return text.replace(/^## Compatibility\n[\s\S]*?(?=^## |(?![\s\S]))/m, '');
}

describe('user docs', () => {
  it('say SPEC and stand-in only in the Compatibility section of docs/platforms.md', () => {
    const hits = userDocs().flatMap(([file, text]) =>
      outsideCompatibility(text)
        .split('\n')
        .filter((line) => /\bSPEC\b|stand-in/.test(line))
        .map((line) => `${file}: ${line.slice(0, 120)}`),
    );
    expect(hits).toEqual([]);
    expect(readFileSync(join(ROOT, 'docs', 'platforms.md'), 'utf8')).toMatch(/^## Compatibility\n[\s\S]*stand-in/m);
  });

  it('name the subscriptions file as it is: webhook_subscriptions.json', () => {
    const hits = userDocs().flatMap(([file, text]) =>
      text
        .split('\n')
        .filter((line) => /(?<![\w_])subscriptions\.json/.test(line))
        .map((line) => `${file}: ${line.slice(0, 120)}`),
    );
    expect(hits).toEqual([]);
  });

  it('troubleshooting says that only the first failed signature per client per minute is logged with its reason', () => {
    const page = readFileSync(join(ROOT, 'docs', 'troubleshooting.md'), 'utf8').replace(/\s+/g, ' ');
    expect(page).toContain('Only the first failed signature of a client (its address) in a minute is logged with its reason');
    expect(page).toContain('(logged once per client per minute)');
  });

  it('the README names the fifteen platforms', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const platforms = [
      'Telegram',
      'Discord',
      'Slack',
      'Signal',
      'SMS',
      'WhatsApp',
      'Matrix',
      'Mattermost',
      'Home Assistant',
      'e-mail',
      'DingTalk',
      'Feishu',
      'WeCom',
      'WeChat',
      'BlueBubbles',
    ];
    expect(platforms.filter((name) => !readme.includes(name))).toEqual([]);
  });

  it("the dashboard's sign-in says the token is in .env", () => {
    const html = readFileSync(join(ROOT, 'packages', 'server', 'src', 'admin', 'dashboard-html.ts'), 'utf8');
    expect(html).toContain("<code>HOOKWISE_ADMIN_TOKEN</code> in the config dir's <code>.env</code>");
    expect(html).not.toContain('(<code>admin.token</code> in config.yaml)');
  });
});
