// `hookwise deliveries list`: accepted events and where each one stands (pending, running, done, dead), how a done
// one ended (delivered, silent, skipped), how many events a coalesced job stands for and the tokens its run used.
import { Flags } from '@oclif/core';
import type { Job, JobOutcome, JobStatus } from '@hookwise/core';
import { tokensOf, eventCount, jobOutcome, tokenCount, waitingNote } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { listAllProfiles, withDeliveries, type ProfiledJob } from '../../delivery-access';
import { profileFlag } from '../../profile-choice';
import { isoTime } from '../../delivery-store';
import { renderTable, wideFlag } from '../../text-table';

const OUTCOMES: JobOutcome[] = ['delivered', 'silent', 'skipped'];
/** How many jobs are read to find `--limit` of one outcome: the store filters by status and route only. */
const OUTCOME_SCAN_LIMIT = 500;

/** STATUS as people read it: a done job's outcome when it was not delivered, a pending job held back (a spent budget). */
function statusText(job: Job): string {
  const outcome = jobOutcome(job);
  if (outcome && outcome !== 'delivered') return `done (${outcome})`;
  return waitingNote(job) ? 'pending (held)' : job.status;
}

export default class DeliveriesList extends HookwiseCommand {
  static override description =
    'List accepted events and their state, newest first. A done job that was not delivered is marked silent (the agent had nothing to say) or skipped (a spent budget, or a conversation reply whose turns ran out while it waited), a pending one a budget holds back held; EVENTS counts the webhook events a coalesced job stands for, TOKENS its agent run (input + output).';
  static override examples = [
    '<%= config.bin %> deliveries list',
    '<%= config.bin %> deliveries list --status dead --route ci --json',
    '<%= config.bin %> deliveries list --outcome silent',
    '<%= config.bin %> deliveries list --profile acme',
    '<%= config.bin %> deliveries list --all-profiles',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    'config-dir': configDirFlag,
    profile: profileFlag,
    'all-profiles': Flags.boolean({
      description: "Every profile's deliveries (the default profile's and each profile's under profiles/), with a PROFILE column.",
    }),
    status: Flags.string({ description: 'Only jobs in this state.', options: ['pending', 'running', 'done', 'dead'] }),
    outcome: Flags.string({
      description: `Only done jobs that ended so. Filtered here over the newest ${OUTCOME_SCAN_LIMIT} done jobs (of --route), as the store filters by status and route only.`,
      options: OUTCOMES,
    }),
    route: Flags.string({ description: 'Only jobs of this route.' }),
    limit: Flags.integer({ description: 'At most this many jobs.', default: 50, min: 1 }),
    wide: wideFlag,
  };

  async run(): Promise<ProfiledJob[]> {
    const { flags } = await this.parse(DeliveriesList);
    const outcome = flags.outcome as JobOutcome | undefined;
    if (outcome && flags.status && flags.status !== 'done') this.fail(`--outcome ${outcome} lists done jobs only: leave out --status ${flags.status}`);
    let jobs: ProfiledJob[];
    const allProfiles = flags['all-profiles'];
    // $HOOKWISE_PROFILE gives way to --all-profiles; a --profile typed with it is a contradiction.
    if (allProfiles && this.argv.some((arg) => arg === '--profile' || arg.startsWith('--profile='))) this.fail('give --profile or --all-profiles, not both');
    const choice = this.readsConfigDir({ ...flags, profile: allProfiles ? undefined : flags.profile });
    const filter = outcome
      ? { status: 'done' as const, route: flags.route, limit: Math.max(flags.limit, OUTCOME_SCAN_LIMIT) }
      : { status: flags.status as JobStatus | undefined, route: flags.route, limit: flags.limit };
    try {
      const listed = allProfiles ? await listAllProfiles(choice.rootDir, filter) : await withDeliveries(choice, (deliveries) => deliveries.list(filter));
      jobs = outcome ? listed.filter((job) => jobOutcome(job) === outcome).slice(0, flags.limit) : listed;
    } catch (err) {
      this.fail(err);
    }
    if (!jobs.length) {
      this.logNothingFound('No deliveries match');
      return jobs;
    }
    const rows = jobs.map((j) => [
      ...(allProfiles ? [j.profile ?? '-'] : []),
      j.deliveryId,
      j.route,
      j.event || '-',
      statusText(j),
      j.step,
      String(j.attempts),
      String(eventCount(j)),
      j.usage ? tokenCount(tokensOf(j.usage)) : '-',
      // To the second in the fitted table (20 columns instead of 24); --wide and --json keep the milliseconds.
      flags.wide
        ? isoTime(j.receivedAt)
        : isoTime(j.receivedAt)
            .replace('T', ' ')
            .replace(/\.\d{3}Z$/, 'Z'),
      j.errors.at(-1)?.message ?? j.note ?? '',
    ]);
    const headers = ['DELIVERY ID', 'ROUTE', 'EVENT', 'STATUS', 'STEP', 'ATTEMPTS', 'EVENTS', 'TOKENS', 'RECEIVED', 'LAST ERROR / NOTE'];
    const at = (column: number) => column + (allProfiles ? 1 : 0);
    // Whole ids: a replay's id is its original's plus '-replay-<ms>', and the id is what the next command takes; whole times.
    this.log(
      renderTable(allProfiles ? ['PROFILE', ...headers] : headers, rows, {
        whole: [...(allProfiles ? [0] : []), at(0), at(8)],
        // Coalesced events, tokens and the step say least in a list (deliveries show and usage have them).
        drop: [at(7), at(6), at(4)],
        wide: flags.wide,
      }),
    );
    return jobs;
  }
}
