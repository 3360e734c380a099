// `hookwise deliveries usage`: per route, what the agent runs of a period came to (tokens, runs, how the jobs ended,
// from the stored jobs) and what the budgets count now (runs this hour, tokens today, against the route's limits).
import { Flags } from '@oclif/core';
import { DEFAULT_USAGE_PERIOD, USAGE_SCAN_LIMIT, againstLimit, parseSince, tokenCount, type UsageReport } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { profileFlag } from '../../profile-choice';
import { withDeliveries } from '../../delivery-access';
import { isoTime } from '../../delivery-store';
import { renderTable } from '../../text-table';

export default class DeliveriesUsage extends HookwiseCommand {
  static override description =
    "Sum per route the jobs received in a period: webhook events, jobs, agent runs, how they ended (delivered, silent, skipped, dead, still open) and the tokens the runs used (input, output, cached input, cache write), from the stored jobs (done jobs are kept for 7 days); beside them what the budgets count now (agent runs this clock hour, tokens this UTC day) against each route's budget.";
  static override examples = [
    '<%= config.bin %> deliveries usage',
    '<%= config.bin %> deliveries usage --since 7d --route pr-review',
    '<%= config.bin %> deliveries usage --since 2026-01-31T00:00:00Z --json',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    'config-dir': configDirFlag,
    profile: profileFlag,
    since: Flags.string({
      description: 'The period: a duration back from now (30m, 24h, 7d) or a point in time (ISO 8601).',
      default: DEFAULT_USAGE_PERIOD,
    }),
    route: Flags.string({ description: 'Only this route.' }),
  };

  async run(): Promise<UsageReport> {
    const { flags } = await this.parse(DeliveriesUsage);
    const since = parseSince(flags.since);
    if (typeof since !== 'number') this.fail(`--${since.problem}`);
    let report: UsageReport;
    const choice = this.readsConfigDir(flags);
    try {
      report = await withDeliveries(choice, (deliveries) => deliveries.usage(since, flags.route));
    } catch (err) {
      this.fail(err);
    }
    this.log(`Jobs received since ${isoTime(report.since)}: ${report.jobsRead}${report.complete ? '' : ` (the newest ${USAGE_SCAN_LIMIT} stored jobs only)`}.`);
    if (!report.routes.length) {
      this.logNothingFound(flags.route ? `No route '${flags.route}' and no jobs of it` : 'No routes and no jobs');
      return report;
    }
    const rows = report.routes.map((r) => {
      const s = r.stored;
      return [
        r.route,
        String(s.events),
        String(s.jobs),
        String(s.agentRuns),
        String(s.delivered),
        String(s.silent),
        String(s.skipped),
        String(s.dead),
        String(s.open),
        tokenCount(s.inputTokens),
        tokenCount(s.outputTokens),
        tokenCount(s.cachedInputTokens),
        tokenCount(s.cacheWriteTokens),
        againstLimit(r.runsThisHour, r.budget?.runsPerHour),
        againstLimit(r.tokensToday, r.budget?.tokensPerDay),
      ];
    });
    this.log(
      renderTable(
        [
          'ROUTE',
          'EVENTS',
          'JOBS',
          'AGENT RUNS',
          'DELIVERED',
          'SILENT',
          'SKIPPED',
          'DEAD',
          'OPEN',
          'INPUT TOKENS',
          'OUTPUT TOKENS',
          'CACHED',
          'CACHE WRITE',
          'RUNS THIS HOUR',
          'TOKENS TODAY',
        ],
        rows,
        // Counts cut short would be wrong numbers: this table is never fitted (every column is whole).
        { whole: [0], wide: true },
      ),
    );
    if (report.all || report.globalBudget)
      this.log(
        `All routes together (agent.budget): ${againstLimit(report.all?.runsThisHour, report.globalBudget?.runsPerHour, 'runs this hour')}, ${againstLimit(report.all?.tokensToday, report.globalBudget?.tokensPerDay, 'tokens today')}.`,
      );
    if (!report.counted) this.log('Runs this hour and tokens today are not shown: the store keeps no budget counters.');
    return report;
  }
}
