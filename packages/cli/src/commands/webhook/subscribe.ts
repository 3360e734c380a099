// `hookwise webhook subscribe <name>`: creates or updates a dynamic subscription and prints its URL and secret.
import { Args, Flags } from '@oclif/core';
import { HookwiseConfigError } from '@hookwise/core';
import { invalidRouteNameMessage, isValidRouteName, routeDefaults, toRoute, updateSubscriptions } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag, configDirFrom } from '../../config-dir';
import { openOfflineGateway } from '../../offline-gateway';
import { buildEntry } from '../../subscription-entry';
import { publicBaseUrl, webhookUrl } from '../../webhook-url';

export interface SubscribeResult {
  name: string;
  created: boolean;
  url: string;
  secret: string;
  events: string[];
  deliver: string;
  skills: string[];
}

export default class WebhookSubscribe extends HookwiseCommand {
  static override description =
    'Create a dynamic webhook subscription, or update the one of that name (its secret is kept unless --secret is given). ' +
    'Prints the webhook URL and the HMAC secret the sender signs with. The running gateway picks it up on the next request.';
  static override examples = [
    '<%= config.bin %> webhook subscribe ci --events push,pull_request --description "CI notifications"',
    '<%= config.bin %> webhook subscribe pr-review --events pull_request --prompt "Review PR #{pull_request.number}: {pull_request.title}" --skills code-review',
    '<%= config.bin %> webhook subscribe pr-comment --source github --events pull_request --deliver github_comment --deliver-extra repo={repository.full_name} --deliver-extra pr_number={pull_request.number}',
    '<%= config.bin %> webhook subscribe alerts --deliver telegram --deliver-chat-id -1001234567890 --json',
  ];
  static override enableJsonFlag = true;
  static override args = {
    name: Args.string({ description: 'Route name: the last segment of /webhooks/<name> (a-z, 0-9, "-", "_").', required: true }),
  };
  static override flags = {
    'config-dir': configDirFlag,
    events: Flags.string({ description: 'Comma-separated event types to accept (empty: all events).' }),
    prompt: Flags.string({ description: 'Prompt template with {dot.notation} payload references (unset: the payload as JSON).' }),
    deliver: Flags.string({
      description:
        'Where the answer goes: log, github_comment, telegram, slack, ... (or the SPEC names codehost_a_comment, platform_01..platform_15) or a plugin deliverer (default: log); several comma-separated (github_comment,slack) deliver to each on its own.',
    }),
    'deliver-chat-id': Flags.string({ description: 'Target chat for platform deliverers (deliver_extra.chat_id); unset: the home channel.' }),
    'deliver-extra': Flags.string({ description: 'Extra delivery setting key=value (a template); repeatable.', multiple: true }),
    description: Flags.string({ description: 'What the subscription is for.' }),
    skills: Flags.string({ description: 'Comma-separated skills loaded for the agent run.' }),
    secret: Flags.string({ description: 'Use this HMAC secret instead of a generated one (32 random bytes, base64url).' }),
    'rotate-secret': Flags.boolean({
      description: 'Generate a new secret and keep the current one as the second of `secrets` until senders have switched (run again to drop it).',
    }),
    source: Flags.string({
      description:
        'The sender style the route accepts: github, gitlab, generic, stripe, slack, ... (docs/sources.md); unset: any of github, gitlab and generic.',
    }),
    'source-option': Flags.string({ description: 'An option of the source, key=value (e.g. tolerance_seconds=600); repeatable.', multiple: true }),
  };

  async run(): Promise<SubscribeResult> {
    const { args, flags } = await this.parse(WebhookSubscribe);
    const { name } = args;
    if (!isValidRouteName(name)) this.error(`${invalidRouteNameMessage(name)}, e.g. 'ci-builds'`, { exit: 1 });
    let result: SubscribeResult;
    let adapterEnabled = true;
    try {
      const offline = await openOfflineGateway(configDirFrom(flags['config-dir']));
      const { gateway, loaded } = offline;
      try {
        const { config } = loaded;
        adapterEnabled = config.platforms.webhook.enabled;
        if (gateway.routes.isStatic(name)) {
          throw new Error(
            `'${name}' is a static route in ${loaded.configFile ?? 'config.yaml'} (platforms.webhook.extra.routes.${name}); ` +
              'static routes win over subscriptions, so this subscription would never be used: choose another name',
          );
        }
        result = await updateSubscriptions(loaded.configDir, (entries) => {
          const existing = Object.hasOwn(entries, name) ? entries[name] : undefined;
          const entry = buildEntry(flags, existing, new Date());
          const problems = gateway.routeProblems(toRoute(name, entry, 'subscription', routeDefaults(config)));
          if (problems.length) throw new HookwiseConfigError(problems, `subscription '${name}' was not saved`, 'HW_E_SUBSCRIPTIONS');
          entries[name] = entry;
          return {
            name,
            created: !existing,
            url: webhookUrl(publicBaseUrl(config), name),
            secret: entry.secrets?.[0] ?? entry.secret ?? '',
            events: entry.events,
            deliver: typeof entry.deliver === 'string' ? entry.deliver : entry.deliver.map((d) => (typeof d === 'string' ? d : d.to)).join(','),
            skills: entry.skills,
          };
        });
      } finally {
        await offline.close();
      }
    } catch (err) {
      this.fail(err);
    }
    this.report(result, flags.secret !== undefined || flags['rotate-secret'] === true, adapterEnabled);
    return result;
  }

  private report(result: SubscribeResult, secretGiven: boolean, adapterEnabled: boolean): void {
    const showSecret = result.created || secretGiven;
    this.log(`Subscription '${result.name}' ${result.created ? 'created' : 'updated'}.`);
    this.log(`  URL:      ${result.url}`);
    this.log(`  Secret:   ${showSecret ? result.secret : "(unchanged: the route's own secret)"}`);
    this.log(`  Events:   ${result.events.length ? result.events.join(', ') : 'all'}`);
    this.log(`  Deliver:  ${result.deliver}`);
    if (result.skills.length) this.log(`  Skills:   ${result.skills.join(', ')}`);
    this.log('');
    // The global secret of `gateway setup` does not verify this route: say so, or a sender signing with it gets 401.
    this.log(
      `This route has its own secret${showSecret ? ' (above)' : ''}: senders of /webhooks/${result.name} must sign with it, not with the global ` +
        'WEBHOOK_SECRET of `hookwise gateway setup`.',
    );
    if (showSecret) {
      this.log('Give the sender this URL and secret (GitHub: Settings > Webhooks, content type application/json; GitLab:');
      this.log('the secret token). Generic senders sign each body with HMAC-SHA256 (X-Webhook-Signature: <hex>). Keep the');
      this.log('secret private. Other senders (Stripe, Slack, ...): --source, see docs/sources.md.');
    } else {
      this.log(`A new one: hookwise webhook subscribe ${result.name} --rotate-secret (the old one keeps working until you run it again).`);
    }
    this.log(`Try it: hookwise webhook test ${result.name}`);
    if (!adapterEnabled) this.warn('the webhook adapter is not enabled yet: run `hookwise gateway setup` or set WEBHOOK_ENABLED=true');
  }
}
