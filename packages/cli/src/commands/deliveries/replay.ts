// `hookwise deliveries replay <delivery-id>`: runs an accepted event again, as a new job with its own delivery id.
import { Args } from '@oclif/core';
import type { Job } from '@hookwise/core';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { profileFlag } from '../../profile-choice';
import { withDeliveries } from '../../delivery-access';

export default class DeliveriesReplay extends HookwiseCommand {
  static override description = 'Run an accepted event again (agent and delivery) as a new job; the original stays as it is.';
  static override examples = ['<%= config.bin %> deliveries replay 72d3162e-cc78-11e3-81ab-4c9367dc0958'];
  static override enableJsonFlag = true;
  static override args = {
    id: Args.string({ description: 'Delivery id or job id to replay, or a unique prefix of one (4 or more characters).', required: true }),
  };
  static override flags = { 'config-dir': configDirFlag, profile: profileFlag };

  async run(): Promise<{ replayed: string; job: Job }> {
    const { args, flags } = await this.parse(DeliveriesReplay);
    let original: Job;
    let job: Job;
    const choice = this.readsConfigDir(flags);
    try {
      [original, job] = await withDeliveries(choice, async (deliveries) => {
        const found = await deliveries.find(args.id);
        // A new delivery id (replayJob): destinations that drop repeated ids must not swallow a replay someone asked for.
        return [found, await deliveries.replay(found)] as const;
      });
    } catch (err) {
      this.fail(err);
    }
    this.log(`Replaying ${original.deliveryId} on route '${original.route}' as ${job.deliveryId}; a running gateway picks it up within seconds.`);
    return { replayed: original.deliveryId, job };
  }
}
