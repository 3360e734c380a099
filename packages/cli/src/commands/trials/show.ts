// `hookwise trials show <id>`: one kept trial as `routes try` printed it: each event's old and new answer side by side, and the totals.
import { Args } from '@oclif/core';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { profileFlag } from '../../profile-choice';
import { readTrial, type TrialRecord } from '../../trial-store';
import { trialText } from '../../trial-text';

export default class TrialsShow extends HookwiseCommand {
  static override description =
    "Show a kept trial run of `hookwise routes try`: each event's old and new answer side by side, the change tried and the totals.";
  static override examples = ['<%= config.bin %> trials show t-20260131-142501-3fa2', '<%= config.bin %> trials show t-20260131 --json'];
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'Trial id, or a unique prefix of one.', required: true }) };
  static override flags = { 'config-dir': configDirFlag, profile: profileFlag };

  async run(): Promise<TrialRecord> {
    const { args, flags } = await this.parse(TrialsShow);
    const choice = this.readsConfigDir(flags);
    let trial: TrialRecord;
    try {
      trial = readTrial(choice.dir, args.id);
    } catch (err) {
      this.fail(err, true);
    }
    this.log(`Trial ${trial.id} of route '${trial.route}', ${trial.createdAt}: ${JSON.stringify(trial.change)}\n`);
    this.log(trialText(trial, Number(process.env.COLUMNS) || process.stdout.columns || 120));
    return trial;
  }
}
