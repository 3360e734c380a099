// `hookwise routes try <route>`: a changed prompt, agent, filter, skills or whole definition tried on stored events
// before anyone sees it. Each event goes through the candidate's filter, prompt, sandbox and agent as the worker
// would run it; nothing is delivered and no action runs; the old and new answers are printed side by side and the
// trial is kept under <config_dir>/trials (trial-store.ts) for `hookwise trials show` and the dashboard.
import { Args, Flags } from '@oclif/core';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { loadChosen, profileArg, profileFlag } from '../../profile-choice';
import { parseCsv } from '../../csv-list';
import { trialRoutes } from '../../trial-candidate';
import { selectionProblem, selectTrialEvents, type TrialOutcome } from '../../trial-events';
import { runTrial } from '../../trial-run';
import { saveTrial, type TrialRecord } from '../../trial-store';
import { eventText, totalsText } from '../../trial-text';

export default class RoutesTry extends HookwiseCommand {
  static override description =
    "Try a change of a route on its stored events before anyone sees it: each event runs through the candidate's filter, prompt, sandbox and agent as the worker would run it, with nothing delivered and no action performed; prints the old and the new answer side by side (or 'filtered out now' / 'now passes the filter'), silent or not, tokens and time, then totals, and keeps the trial (hookwise trials list|show). Trial runs count against no budget.";
  static override examples = [
    '<%= config.bin %> routes try pr-review --prompt "Review PR #{pull_request.number} in three bullet points" --last 5',
    '<%= config.bin %> routes try pr-review --agent-file cheaper-model.yaml --since 24h --max-tokens 50000',
    "<%= config.bin %> routes try ci --filter 'action=opened|synchronize' --outcome silent",
    '<%= config.bin %> routes try triage --with triage-v2.yaml --ids 72d3162e,9f1c0a44 --json',
  ];
  static override enableJsonFlag = true;
  static override args = { route: Args.string({ description: 'The route (static or subscription) whose change is tried.', required: true }) };
  static override flags = {
    'config-dir': configDirFlag,
    profile: profileFlag,
    prompt: Flags.string({ description: 'Candidate prompt template ({dot.notation} payload references).' }),
    'prompt-file': Flags.string({ description: 'Read the candidate prompt template from this file.' }),
    'agent-file': Flags.string({
      description:
        "A YAML agent block (runner, model, preset, ...) for the candidate: another runner replaces the route's block, the same runner's keys are merged over it.",
    }),
    filter: Flags.string({
      description: 'Candidate filter test, the grammar of `webhook subscribe --filter` (docs/filters.md); repeatable, replaces the filter.',
      multiple: true,
    }),
    'filter-expression': Flags.string({ description: 'Candidate JSONata filter expression; repeatable, combined with --filter.', multiple: true }),
    skills: Flags.string({ description: 'Candidate skills, comma-separated.' }),
    with: Flags.string({ description: 'A YAML route definition (prompt:, agent:, filter:, skills:, ...) merged over the current one.' }),
    last: Flags.integer({ description: 'Try on the newest N finished events of the route.', default: 10, min: 1 }),
    since: Flags.string({ description: 'Only events received since: a duration back from now (30m, 24h, 7d) or a time (ISO 8601).' }),
    ids: Flags.string({ description: 'Only these delivery ids (or unique prefixes), comma-separated.' }),
    outcome: Flags.string({ description: 'Only events whose stored run ended so.', options: ['silent', 'delivered', 'dead'] }),
    include: Flags.string({
      description: "Also try what is left out by default: `replies`, the jobs that continued a conversation (they ran with the conversation's prompt).",
      options: ['replies'],
      multiple: true,
    }),
    'max-tokens': Flags.integer({ description: "Stop starting runs once the trial's runs used more tokens than this (runs under way finish).", min: 1 }),
    concurrency: Flags.integer({ description: 'Trial runs at a time.', default: 2, min: 1, max: 32 }),
  };

  async run(): Promise<TrialRecord> {
    const { args, flags } = await this.parse(RoutesTry);
    const choice = this.readsConfigDir(flags);
    const selection = {
      last: flags.last,
      ...(flags.since ? { since: flags.since } : {}),
      ...(flags.ids ? { ids: parseCsv(flags.ids) } : {}),
      ...(flags.outcome ? { outcome: flags.outcome as TrialOutcome } : {}),
      ...(flags.include?.length ? { include: flags.include as Array<'replies'> } : {}),
    };
    const problem = selectionProblem(selection);
    if (problem) this.fail(problem);
    let trial: TrialRecord;
    let file: string;
    try {
      const loaded = loadChosen(choice);
      const { config, configDir } = loaded;
      const routes = trialRoutes(config, configDir, args.route, flags);
      const jobs = await selectTrialEvents(choice, args.route, selection);
      if (!jobs.length) {
        this.fail(
          `no finished events of route '${args.route}' match in the store${flags.outcome ? ` (--outcome ${flags.outcome})` : ''}${flags.since ? ` since ${flags.since}` : ''}: see \`hookwise deliveries list --route ${args.route}${profileArg(choice)}\``,
          true,
        );
      }
      const columns = Number(process.env.COLUMNS) || process.stdout.columns || 120;
      if (!this.jsonEnabled()) this.log(`Trying ${JSON.stringify(routes.change)} on ${jobs.length} events of route '${args.route}' (nothing is delivered)\n`);
      trial = await runTrial({
        loaded,
        ...routes,
        jobs,
        selection,
        concurrency: flags.concurrency,
        maxTokens: flags['max-tokens'],
        onEvent: (event) => {
          if (!this.jsonEnabled()) this.log(`${eventText(event, columns)}\n`);
        },
      });
      file = saveTrial(configDir, trial);
    } catch (err) {
      this.fail(err);
    }
    if (!this.jsonEnabled()) this.log(`${totalsText(trial)}\n(kept in ${file})`);
    return trial;
  }
}
