// The first-party plugins: the one list of what the hookwise distribution loads by default, before the config's own
// `plugins:`. @hookwise/gateway depends on no plugin; this package depends on each of these (a test checks that the
// root tsconfig, this package's dependencies, plugins/ and the docs tables agree with the list), so they resolve
// from here wherever the CLI is installed.
import { loadPlugins, type LoadedPlugin } from '@hookwise/gateway';

export const FIRST_PARTY_PLUGINS: readonly string[] = [
  '@hookwise/plugin-source-github',
  '@hookwise/plugin-source-gitlab',
  '@hookwise/plugin-source-generic',
  '@hookwise/plugin-source-standard-webhooks',
  '@hookwise/plugin-source-stripe',
  '@hookwise/plugin-source-slack',
  '@hookwise/plugin-source-shopify',
  '@hookwise/plugin-source-bitbucket',
  '@hookwise/plugin-source-gitea',
  '@hookwise/plugin-source-linear',
  '@hookwise/plugin-source-sentry',
  '@hookwise/plugin-source-pagerduty',
  '@hookwise/plugin-source-twilio',
  '@hookwise/plugin-source-paddle',
  '@hookwise/plugin-source-zoom',
  '@hookwise/plugin-source-twitch',
  '@hookwise/plugin-source-discord',
  '@hookwise/plugin-source-sendgrid',
  '@hookwise/plugin-agent-command',
  '@hookwise/plugin-agent-anthropic',
  '@hookwise/plugin-agent-openai',
  '@hookwise/plugin-deliverer-dingtalk',
  '@hookwise/plugin-deliverer-github-comment',
  '@hookwise/plugin-deliverer-gitlab-comment',
  '@hookwise/plugin-deliverer-telegram',
  '@hookwise/plugin-deliverer-discord',
  '@hookwise/plugin-deliverer-slack',
  '@hookwise/plugin-deliverer-signal',
  '@hookwise/plugin-deliverer-sms',
  '@hookwise/plugin-deliverer-whatsapp',
  '@hookwise/plugin-deliverer-matrix',
  '@hookwise/plugin-deliverer-feishu',
  '@hookwise/plugin-deliverer-mattermost',
  '@hookwise/plugin-deliverer-wecom',
  '@hookwise/plugin-deliverer-homeassistant',
  '@hookwise/plugin-deliverer-wechat',
  '@hookwise/plugin-deliverer-email',
  '@hookwise/plugin-deliverer-bluebubbles',
  '@hookwise/store-sqlite',
  '@hookwise/store-redis',
  '@hookwise/plugin-source-telegram',
  '@hookwise/plugin-source-whatsapp',
  '@hookwise/plugin-source-matrix',
  '@hookwise/plugin-source-mattermost',
  '@hookwise/plugin-source-feishu',
  '@hookwise/plugin-source-dingtalk',
  '@hookwise/plugin-source-wecom',
  '@hookwise/plugin-source-bluebubbles',
  '@hookwise/plugin-source-wechat',
];

/** Where the first-party packages are looked up: this package's own folder (Node walks up its node_modules). */
export const FIRST_PARTY_DIR: string = __dirname;

/**
 * The first-party plugins loaded, ready for openGateway's `firstParty` (or the server's startGateway). Resolved
 * from this package with its own `require`, never from the config dir: a config dir cannot replace them. Loaded on
 * each call (Node caches the modules), so a command that opens no gateway pays nothing.
 */
export function loadFirstPartyPlugins(): Promise<LoadedPlugin[]> {
  return loadPlugins(FIRST_PARTY_PLUGINS, { configDir: FIRST_PARTY_DIR, cwd: FIRST_PARTY_DIR, requireFn: require });
}
