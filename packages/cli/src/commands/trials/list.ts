// `hookwise trials list`: the kept trials of `hookwise routes try`, newest first.
import { tokenCount } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { profileFlag } from '../../profile-choice';
import { renderTable } from '../../text-table';
import { listTrials, type TrialRecord } from '../../trial-store';

export default class TrialsList extends HookwiseCommand {
  static override description =
    'List the kept trial runs of `hookwise routes try` (<config_dir>/trials), newest first: route, change, events, runs, how many answers changed or were filtered out, tokens before and now.';
  static override examples = ['<%= config.bin %> trials list', '<%= config.bin %> trials list --json'];
  static override enableJsonFlag = true;
  static override flags = { 'config-dir': configDirFlag, profile: profileFlag };

  async run(): Promise<Array<Omit<TrialRecord, 'events'>>> {
    const { flags } = await this.parse(TrialsList);
    const trials = listTrials(this.readsConfigDir(flags).dir);
    if (!trials.length) {
      this.logNothingFound('No trials', 'Run one with `hookwise routes try <route> --prompt ...`.');
      return [];
    }
    const rows = trials.map((t) => [
      t.id,
      t.route,
      t.createdAt.slice(0, 16).replace('T', ' '),
      Object.keys(t.change).join(','),
      String(t.totals.events),
      `${t.totals.runs}${t.stopped ? ' (stopped)' : ''}`,
      String(t.events.filter((e) => e.change === 'changed').length),
      String(t.totals.filteredOutNow),
      `${tokenCount(t.totals.tokens.old)} -> ${tokenCount(t.totals.tokens.new)}`,
    ]);
    this.log(renderTable(['ID', 'ROUTE', 'CREATED', 'CHANGE', 'EVENTS', 'RUNS', 'CHANGED', 'FILTERED OUT', 'TOKENS'], rows, { whole: [0, 2] }));
    return trials.map(({ events: _events, ...rest }) => rest);
  }
}
