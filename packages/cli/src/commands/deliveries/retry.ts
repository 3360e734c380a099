// `hookwise deliveries retry --dead`: puts dead letters back in the queue (a saved answer is delivered, not re-made).
import { Flags } from '@oclif/core';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { withDeliveries } from '../../delivery-access';

export default class DeliveriesRetry extends HookwiseCommand {
  static override description = 'Retry dead letters: each goes back to the queue at the step where it failed, with fresh attempts.';
  static override examples = ['<%= config.bin %> deliveries retry --dead', '<%= config.bin %> deliveries retry --dead --route ci'];
  static override enableJsonFlag = true;
  static override flags = {
    'config-dir': configDirFlag,
    dead: Flags.boolean({ description: 'Retry the dead letters (required: the only kind of job that waits for a manual retry).', required: true }),
    route: Flags.string({ description: 'Only dead letters of this route.' }),
  };

  async run(): Promise<{ retried: string[] }> {
    const { flags } = await this.parse(DeliveriesRetry);
    let retried: string[];
    this.readsConfigDir(flags['config-dir']);
    try {
      retried = await withDeliveries(flags['config-dir'], (deliveries) => deliveries.retryDead(flags.route));
    } catch (err) {
      this.fail(err);
    }
    this.log(
      retried.length ? `Put ${retried.length} dead letter(s) back in the queue: ${retried.join(', ')}` : `${this.whereRead('No dead letters to retry')}.`,
    );
    return { retried };
  }
}
