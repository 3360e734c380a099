// `hookwise webhook subscribe <name>`: creates or updates a dynamic subscription and prints its URL and secret.
import { Args, Flags } from '@oclif/core';
import { HookwiseConfigError } from '@hookwise/core';
import {
  DELIVER_NONE,
  invalidRouteNameMessage,
  isValidRouteName,
  routeDefaults,
  toRoute,
  updateSubscriptions,
  type SubscriptionEntry,
} from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { profileArg, profileFlag, type ProfileChoice } from '../../profile-choice';
import { openOfflineGateway } from '../../offline-gateway';
import { buildEntry } from '../../subscription-entry';
import { applyRouteFlags, describeFilterCondition } from '../../subscribe-route-flags';
import { describeTransform } from '../../subscribe-transform-flags';
import { publicBaseUrl, webhookPath, webhookUrl } from '../../webhook-url';
import { channelError, channelRequest, channelSubscription, jobChannelFrom } from '../../job-channel-client';
import { agentMade, agentSettingsRefusal, keptAgentSettings } from '../../agent-made-settings';

export interface SubscribeResult {
  name: string;
  created: boolean;
  url: string;
  secret: string;
  events: string[];
  deliver: string;
  skills: string[];
  /** What decides whether and when the agent runs (docs/filters.md), as stored; absent when unset. */
  filter?: SubscriptionEntry['filter'];
  coalesce?: SubscriptionEntry['coalesce'];
  concurrency_key?: string;
  budget?: SubscriptionEntry['budget'];
  silent_marker?: string;
  transform?: SubscriptionEntry['transform'];
  /** Set when an agent run made the subscription (its route and job; adopted_at once the operator kept its settings). */
  created_by?: SubscriptionEntry['created_by'];
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
    "<%= config.bin %> webhook subscribe pr-review --events pull_request --filter 'action=opened|synchronize|ready_for_review' --filter pull_request.draft=false --coalesce-key '{repository.full_name}#{pull_request.number}' --coalesce-window 120 --runs-per-hour 20",
    "<%= config.bin %> webhook subscribe triage --events issues --filter-expression \"'needs-triage' in issue.labels.name\" --deliver none --silent-marker '[NOTHING]'",
  ];
  static override enableJsonFlag = true;
  static override args = {
    name: Args.string({ description: 'Route name: the last segment of /webhooks/<name> (a-z, 0-9, "-", "_").', required: true }),
  };
  static override flags = {
    'config-dir': configDirFlag,
    profile: profileFlag,
    events: Flags.string({ description: 'Comma-separated event types to accept (empty: all events).' }),
    prompt: Flags.string({ description: 'Prompt template with {dot.notation} payload references (unset: the payload as JSON).' }),
    deliver: Flags.string({
      description:
        'Where the answer goes: log, github_comment, telegram, slack, ... (older names work too: docs/platforms.md#compatibility) or a plugin deliverer (default: log); several comma-separated (github_comment,slack) deliver to each on its own; none: nothing is delivered (the agent acts through its tools).',
    }),
    'deliver-chat-id': Flags.string({ description: 'Target chat for platform deliverers (deliver_extra.chat_id); unset: the home channel.' }),
    'deliver-extra': Flags.string({ description: 'Extra delivery setting key=value (a template); repeatable.', multiple: true }),
    description: Flags.string({ description: 'What the subscription is for.' }),
    skills: Flags.string({ description: 'Comma-separated skills loaded for the agent run.' }),
    secret: Flags.string({ description: 'Use this HMAC secret instead of a generated one (32 random bytes, base64url).' }),
    'rotate-secret': Flags.boolean({
      description: 'Generate a new secret and keep the current one as the second of `secrets` until senders have switched (run again to drop it).',
    }),
    'keep-agent-settings': Flags.boolean({
      description:
        'On a subscription an agent run made: keep the settings the agent chose that no other flag replaces (prompt, deliver and its chat, filter, ...). Without it the command lists them and changes nothing.',
    }),
    source: Flags.string({
      description:
        'The sender style the route accepts: github, gitlab, generic, stripe, slack, ... (docs/sources.md); unset: any of github, gitlab and generic.',
    }),
    'source-option': Flags.string({ description: 'An option of the source, key=value (e.g. tolerance_seconds=600); repeatable.', multiple: true }),
    filter: Flags.string({
      description:
        "A payload test the event must pass to run the agent; repeatable (all must hold). path=value (equals; true, false, null and numbers as such, \"42\" a string), path!=value, path=a|b|c (one of), path!=a|b (none of), path~=regex (matches), path*=text (contains: substring or list element), path@=file (in_file: a line of the file, relative to the config dir), path? (present), !path? (missing), not:<form> (the form fails). Paths: the payload's, headers.<lower-case name>, event. '' removes the filter. docs/filters.md.",
      multiple: true,
    }),
    'filter-expression': Flags.string({
      description: 'A JSONata expression over the payload that must give true (e.g. "\'bug\' in issue.labels.name"); repeatable, combined with --filter.',
      multiple: true,
    }),
    'coalesce-key': Flags.string({
      description:
        "Template of a key: events with the same key within --coalesce-window become one agent run (e.g. '{repository.full_name}#{pull_request.number}'); '' removes coalescing.",
    }),
    'coalesce-window': Flags.string({ description: "Seconds from a key's first event to its run (with --coalesce-key)." }),
    'coalesce-mode': Flags.string({ description: 'latest (the run sees the last payload, the default) or all (also every payload, as {__events__}).' }),
    'concurrency-key': Flags.string({ description: "Template of a key: runs with the same key never overlap (default: the coalesce key); '' removes it." }),
    'runs-per-hour': Flags.string({ description: 'Budget: agent runs per clock hour (0 removes the limit).' }),
    'tokens-per-day': Flags.string({ description: 'Budget: tokens per UTC day, as runners report them (0 removes the limit).' }),
    'when-over-budget': Flags.string({ description: 'wait (the job waits for the next window, the default) or skip (it ends as skipped, no agent run).' }),
    'silent-marker': Flags.string({
      description: "An answer that is this text (or empty) is recorded as silent and not delivered (default: agent.silent_marker, [SILENT]); '' removes it.",
    }),
    'deliver-only': Flags.boolean({
      allowNo: true,
      description: 'No agent: the rendered prompt is delivered within the request (200 delivered, or 502); --no-deliver-only removes it.',
    }),
    'transform-expression': Flags.string({
      description:
        "A JSONata expression that reshapes the payload before filters and the prompt: an object replaces it, text becomes {__transform__}, empty or the silent marker answers 200 ignored; '' removes the transform. docs/configuration.md#transforms.",
    }),
    'transform-command': Flags.string({
      description:
        'A program that reshapes the payload (its JSON on stdin), run in the agent sandbox with no network: a JSON array (\'["node","slim.js"]\') or words split at blanks; output as for --transform-expression. Not available to an agent run.',
    }),
    'transform-timeout': Flags.string({ description: 'Seconds one transform run may take (default 5, at most 60).' }),
    'transform-on-failure': Flags.string({
      description: 'accept (the event goes on with its payload as it came, the default) or reject (503 with Retry-After, the sender retries).',
    }),
  };

  async run(): Promise<SubscribeResult> {
    const { args, flags } = await this.parse(WebhookSubscribe);
    const { name } = args;
    if (!isValidRouteName(name)) this.error(`${invalidRouteNameMessage(name)}, e.g. 'ci-builds'`, { exit: 1 });
    // Inside an agent run: through the gateway's per-job channel (job-channel-client.ts), never the config dir.
    if (process.env.HOOKWISE_JOB_CHANNEL) return this.viaJobChannel(name, flags);
    const choice = this.readsConfigDir(flags);
    let result: SubscribeResult;
    let adapterEnabled = true;
    try {
      const offline = await openOfflineGateway(choice);
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
          const now = new Date();
          const entry = applyRouteFlags(buildEntry(flags, existing, now), flags, existing);
          // An agent run's entry: what it set stays only when the operator has seen it and said so.
          if (agentMade(existing)) {
            const kept = keptAgentSettings(existing, flags);
            if (kept.length && !flags['keep-agent-settings']) throw new Error(agentSettingsRefusal(name, existing, kept));
            entry.created_by = { ...existing.created_by, adopted_at: now.toISOString() };
          }
          const problems = gateway.routeProblems(toRoute(name, entry, 'subscription', routeDefaults(config)));
          if (problems.length) throw new HookwiseConfigError(problems, `subscription '${name}' was not saved`, 'HW_E_SUBSCRIPTIONS');
          entries[name] = entry;
          return {
            name,
            created: !existing,
            url: webhookUrl(publicBaseUrl(config), name, choice.profile),
            secret: entry.secrets?.[0] ?? entry.secret ?? '',
            events: entry.events,
            deliver: typeof entry.deliver === 'string' ? entry.deliver : entry.deliver.map((d) => (typeof d === 'string' ? d : d.to)).join(','),
            skills: entry.skills,
            ...routingOf(entry),
            ...(entry.created_by ? { created_by: entry.created_by } : {}),
          };
        });
      } finally {
        await offline.close();
      }
    } catch (err) {
      this.fail(err);
    }
    this.report(result, flags.secret !== undefined || flags['rotate-secret'] === true, adapterEnabled, choice);
    return result;
  }

  /** Inside an agent run: the channel creates the route with a secret of the gateway's that this side never sees. */
  private async viaJobChannel(name: string, flags: Record<string, unknown>): Promise<SubscribeResult> {
    let answer: Awaited<ReturnType<typeof channelRequest>>;
    try {
      answer = await channelRequest(jobChannelFrom()!, 'PUT', `/subscriptions/${encodeURIComponent(name)}`, channelSubscription(flags));
    } catch (err) {
      this.fail(err);
    }
    if (answer.status >= 300) this.fail(new Error(channelError(answer)));
    const shown = answer.body as { created?: boolean; url?: string; events?: string[]; deliver?: string | string[]; skills?: string[] };
    const deliver = Array.isArray(shown.deliver) ? shown.deliver.join(',') : (shown.deliver ?? 'log');
    const result = {
      name,
      created: shown.created === true,
      url: String(shown.url),
      secret: '',
      events: shown.events ?? [],
      deliver,
      skills: shown.skills ?? [],
    };
    this.log(`Subscription '${name}' ${result.created ? 'created' : 'updated'} through the gateway's job channel.`);
    this.log(`  URL:      ${result.url}`);
    this.log(`  Events:   ${result.events.length ? result.events.join(', ') : 'all'}`);
    this.log(`  Deliver:  ${deliver}`);
    this.log("The gateway generated the route's secret and keeps it: the operator gives it to the sender (hookwise webhook list outside the run).");
    return result;
  }

  private report(result: SubscribeResult, secretGiven: boolean, adapterEnabled: boolean, choice: ProfileChoice): void {
    const showSecret = result.created || secretGiven;
    this.log(`Subscription '${result.name}' ${result.created ? 'created' : 'updated'}.`);
    this.log(`  URL:      ${result.url}`);
    this.log(`  Secret:   ${showSecret ? result.secret : "(unchanged: the route's own secret)"}`);
    this.log(`  Events:   ${result.events.length ? result.events.join(', ') : 'all'}`);
    this.log(`  Deliver:  ${result.deliver}${result.deliver === DELIVER_NONE ? ' (the agent acts through its tools; nothing is delivered)' : ''}`);
    if (result.skills.length) this.log(`  Skills:   ${result.skills.join(', ')}`);
    for (const line of routingLines(result)) this.log(`  ${line}`);
    const by = result.created_by;
    if (by) this.log(`  Made by:  an agent run of route '${by.route}' (job ${by.job}); its settings kept by you${by.adopted_at ? ` at ${by.adopted_at}` : ''}`);
    this.log('');
    // The global secret of `gateway setup` does not verify this route: say so, or a sender signing with it gets 401.
    this.log(
      `This route has its own secret${showSecret ? ' (above)' : ''}: senders of ${webhookPath(result.name, choice.profile)} must sign with it, not with the global ` +
        'WEBHOOK_SECRET of `hookwise gateway setup`.',
    );
    if (showSecret) {
      this.log('Give the sender this URL and secret (GitHub: Settings > Webhooks, content type application/json; GitLab:');
      this.log('the secret token). Generic senders sign each body with HMAC-SHA256 (X-Webhook-Signature: <hex>). Keep the');
      this.log('secret private. Other senders (Stripe, Slack, ...): --source, see docs/sources.md.');
    } else {
      this.log(`A new one: hookwise webhook subscribe ${result.name}${profileArg(choice)} --rotate-secret (the old one keeps working until you run it again).`);
    }
    this.log(`Try it: hookwise webhook test ${result.name}${profileArg(choice)}`);
    if (!adapterEnabled) this.warn('the webhook adapter is not enabled yet: run `hookwise gateway setup` or set WEBHOOK_ENABLED=true');
  }
}

/** The entry's filter, coalescing, concurrency key, budget and silent marker, those that are set. */
function routingOf(entry: SubscriptionEntry): Partial<SubscribeResult> {
  const { filter, coalesce, concurrency_key, budget, silent_marker, transform } = entry;
  return Object.fromEntries(Object.entries({ filter, coalesce, concurrency_key, budget, silent_marker, transform }).filter(([, value]) => value !== undefined));
}

/** One summary line per setting, in the words of the flags. */
function routingLines(result: SubscribeResult): string[] {
  const lines: string[] = [];
  if (result.filter) lines.push(`Filter:   ${(Array.isArray(result.filter) ? result.filter : [result.filter]).map(describeFilterCondition).join(' and ')}`);
  if (result.coalesce) lines.push(`Coalesce: ${result.coalesce.key} within ${result.coalesce.window_seconds} s (${result.coalesce.mode ?? 'latest'})`);
  if (result.concurrency_key) lines.push(`Serial:   ${result.concurrency_key}`);
  if (result.budget) {
    const limits = [
      result.budget.runs_per_hour !== undefined ? `${result.budget.runs_per_hour} runs/hour` : '',
      result.budget.tokens_per_day !== undefined ? `${result.budget.tokens_per_day} tokens/day` : '',
    ].filter(Boolean);
    lines.push(`Budget:   ${limits.join(', ')}; over it: ${result.budget.when_exceeded ?? 'wait'}`);
  }
  if (result.silent_marker) lines.push(`Silent:   ${result.silent_marker}`);
  if (result.transform) lines.push(`Transform: ${describeTransform(result.transform)}`);
  return lines;
}
