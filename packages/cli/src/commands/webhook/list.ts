// `hookwise webhook list`: the dynamic subscriptions, whether each one is active, and their URLs (never secrets).

import { readSubscriptions, staticRoutes, subscriptionProblems } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { loadChosen, profileArg, profileFlag } from '../../profile-choice';
import { renderTable, wideFlag } from '../../text-table';
import { publicBaseUrl, webhookUrl } from '../../webhook-url';
import { channelError, channelRequest, jobChannelFrom } from '../../job-channel-client';

export interface ListedSubscription {
  name: string;
  url: string;
  description?: string;
  events: string[];
  prompt?: string;
  skills: string[];
  deliver: string;
  deliver_extra: Record<string, string>;
  created_at?: string;
  updated_at?: string;
  /** Set when an agent run made it: its route and job (adopted_at: when the operator kept its settings). */
  created_by?: { route: string; job: string; adopted_at?: string };
  /** `active`, `hidden` (a static route has the name) or `invalid` (skipped by the gateway). */
  status: 'active' | 'hidden' | 'invalid';
  problems: string[];
}

export default class WebhookList extends HookwiseCommand {
  static override description = 'List the dynamic webhook subscriptions (secrets are not shown).';
  static override examples = ['<%= config.bin %> webhook list', '<%= config.bin %> webhook list --wide', '<%= config.bin %> webhook list --json'];
  static override enableJsonFlag = true;
  static override flags = { 'config-dir': configDirFlag, profile: profileFlag, wide: wideFlag };

  async run(): Promise<ListedSubscription[]> {
    const { flags } = await this.parse(WebhookList);
    let listed: ListedSubscription[];
    const channel = jobChannelFrom();
    // Inside an agent run: the gateway's job channel lists them (no secrets; settings only of the run's own).
    if (channel) {
      const answer = await channelRequest(channel, 'GET', '/subscriptions').catch((err: unknown) => this.fail(err));
      if (answer.status >= 300) this.fail(new Error(channelError(answer)));
      const subs = (answer.body.subscriptions ?? []) as Array<{ name: string; url: string; own: boolean; events: string[]; description?: string }>;
      this.log(
        renderTable(
          ['NAME', 'OWN', 'EVENTS', 'URL', 'DESCRIPTION'],
          subs.map((s) => [s.name, s.own ? 'yes' : 'no', s.events.join(',') || 'all', s.url, s.description ?? '']),
          { whole: [0, 3], wide: flags.wide },
        ),
      );
      return subs as unknown as ListedSubscription[];
    }
    const choice = this.readsConfigDir(flags);
    try {
      const { config, configDir } = loadChosen(choice);
      const statics = staticRoutes(config);
      const base = publicBaseUrl(config);
      const globalSecret = config.platforms.webhook.extra.secret;
      listed = Object.entries(readSubscriptions(configDir))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, raw]) => {
          // Hand-edited entries may have any shape: read fields defensively, report problems instead of failing.
          const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as Partial<ListedSubscription>;
          const problems = subscriptionProblems(name, raw, globalSecret);
          const status = problems.length ? 'invalid' : statics.has(name) ? 'hidden' : 'active';
          if (status === 'hidden') problems.push(`a static route named '${name}' in config.yaml takes precedence`);
          return {
            name,
            url: webhookUrl(base, name, choice.profile),
            description: entry.description,
            events: Array.isArray(entry.events) ? entry.events : [],
            prompt: entry.prompt,
            skills: Array.isArray(entry.skills) ? entry.skills : [],
            deliver: deliverNames(entry.deliver as unknown),
            deliver_extra: entry.deliver_extra ?? {},
            created_at: entry.created_at,
            updated_at: entry.updated_at,
            ...(entry.created_by ? { created_by: entry.created_by } : {}),
            status,
            problems,
          };
        });
    } catch (err) {
      this.fail(err);
    }
    if (!listed.length) {
      this.logNothingFound(
        'No subscriptions yet',
        `Create one with: hookwise webhook subscribe <name> --events <types> --description <text>${profileArg(choice)}`,
      );
      return listed;
    }
    const rows = listed.map((s) => [
      s.name,
      s.status,
      madeBy(s),
      s.events.length ? s.events.join(',') : 'all',
      s.deliver,
      s.skills.join(',') || '-',
      s.url,
      s.description ?? '',
    ]);
    // The name and URL whole: they are what the next command and the sender take.
    this.log(renderTable(['NAME', 'STATUS', 'MADE BY', 'EVENTS', 'DELIVER', 'SKILLS', 'URL', 'DESCRIPTION'], rows, { whole: [0, 6], wide: flags.wide }));
    for (const s of listed) for (const problem of s.problems) this.warn(problem);
    if (listed.some((s) => s.created_by && !s.created_by.adopted_at)) {
      this.log('');
      this.log('Made by an agent run: check its prompt and destination (webhook list --json) before giving a sender its URL;');
      this.log('hookwise webhook subscribe <name> lists what it keeps and asks for --keep-agent-settings.');
    }
    return listed;
  }
}

/** Who made it: `operator`, or `agent:<route>` (`, kept` once the operator kept its settings). */
function madeBy(s: ListedSubscription): string {
  if (!s.created_by) return 'operator';
  return `agent:${s.created_by.route}${s.created_by.adopted_at ? ' (kept)' : ''}`;
}

/** A subscription's destinations for the table: one id, or a list's ids joined with ','. */
function deliverNames(deliver: unknown): string {
  if (typeof deliver === 'string') return deliver;
  if (!Array.isArray(deliver)) return 'log';
  return deliver.map((d: unknown) => (typeof d === 'string' ? d : String((d as { to?: unknown }).to))).join(',');
}
