// `hookwise deliveries retry <id>`: retries one ended job (a dead letter at the step where it failed; a done job runs
// again as a new one). `hookwise deliveries retry --dead`: puts every dead letter back in the queue (a saved answer
// is delivered, not re-made).
import { Args, Flags } from '@oclif/core';
import { HookwiseError, type Job } from '@hookwise/core';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { profileFlag, type ProfileChoice } from '../../profile-choice';
import { withDeliveries } from '../../delivery-access';

export default class DeliveriesRetry extends HookwiseCommand {
  static override description =
    'Retry an ended job by its id (a dead letter goes back to the queue at the step where it failed; a done one runs again as a new job), or every dead letter with --dead.';
  static override examples = [
    '<%= config.bin %> deliveries retry 72d3162e-cc78-11e3-81ab-4c9367dc0958',
    '<%= config.bin %> deliveries retry --dead',
    '<%= config.bin %> deliveries retry --dead --route ci',
  ];
  static override enableJsonFlag = true;
  static override args = {
    id: Args.string({ description: 'Delivery id or job id of an ended job, or a unique prefix of one (4 or more characters).', required: false }),
  };
  static override flags = {
    'config-dir': configDirFlag,
    profile: profileFlag,
    dead: Flags.boolean({ description: 'Retry every dead letter (instead of one job by its id).' }),
    route: Flags.string({ description: 'With --dead: only dead letters of this route.', dependsOn: ['dead'] }),
  };

  async run(): Promise<{ retried: string[]; replayed?: Job }> {
    const { args, flags } = await this.parse(DeliveriesRetry);
    const choice = this.readsConfigDir(flags);
    if (args.id === undefined && !flags.dead) {
      this.fail(new HookwiseError('HW_E_CONFIG', 'name the job to retry (`hookwise deliveries retry <id>`) or retry every dead letter with --dead'));
    }
    if (args.id !== undefined && flags.dead) {
      this.fail(new HookwiseError('HW_E_CONFIG', 'give a job id or --dead, not both'));
    }
    if (args.id !== undefined) return this.retryOne(args.id, choice);
    let retried: string[];
    try {
      retried = await withDeliveries(choice, (deliveries) => deliveries.retryDead(flags.route));
    } catch (err) {
      this.fail(err);
    }
    this.log(
      retried.length ? `Put ${retried.length} dead letter(s) back in the queue: ${retried.join(', ')}` : `${this.whereRead('No dead letters to retry')}.`,
    );
    return { retried };
  }

  private async retryOne(id: string, choice: ProfileChoice): Promise<{ retried: string[]; replayed?: Job }> {
    let original: Job;
    let outcome: { how: 'retried' | 'replayed'; job: Job };
    try {
      [original, outcome] = await withDeliveries(choice, async (deliveries) => {
        const found = await deliveries.find(id);
        return [found, await deliveries.retry(found)] as const;
      });
    } catch (err) {
      this.fail(err);
    }
    if (outcome.how === 'retried') {
      this.log(`Put dead letter ${original.deliveryId} on route '${original.route}' back in the queue; a running gateway picks it up within seconds.`);
      return { retried: [original.deliveryId] };
    }
    this.log(
      `${original.deliveryId} on route '${original.route}' ended ${original.outcome ?? 'done'}: running it again as ${outcome.job.deliveryId}; a running gateway picks it up within seconds.`,
    );
    return { retried: [original.deliveryId], replayed: outcome.job };
  }
}
