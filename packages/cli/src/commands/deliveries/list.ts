// `hookwise deliveries list`: accepted events and where each one stands (pending, running, done, dead).
import { Flags } from '@oclif/core';
import type { Job, JobStatus } from '@hookwise/core';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { withDeliveries } from '../../delivery-access';
import { isoTime } from '../../delivery-store';
import { renderTable } from '../../text-table';

export default class DeliveriesList extends HookwiseCommand {
  static override description = 'List accepted events and their state, newest first.';
  static override examples = ['<%= config.bin %> deliveries list', '<%= config.bin %> deliveries list --status dead --route ci --json'];
  static override enableJsonFlag = true;
  static override flags = {
    'config-dir': configDirFlag,
    status: Flags.string({ description: 'Only jobs in this state.', options: ['pending', 'running', 'done', 'dead'] }),
    route: Flags.string({ description: 'Only jobs of this route.' }),
    limit: Flags.integer({ description: 'At most this many jobs.', default: 50, min: 1 }),
  };

  async run(): Promise<Job[]> {
    const { flags } = await this.parse(DeliveriesList);
    let jobs: Job[];
    try {
      jobs = await withDeliveries(flags['config-dir'], (deliveries) =>
        deliveries.list({ status: flags.status as JobStatus | undefined, route: flags.route, limit: flags.limit }),
      );
    } catch (err) {
      this.fail(err);
    }
    if (!jobs.length) {
      this.log('No deliveries match.');
      return jobs;
    }
    const rows = jobs.map((j) => [
      j.deliveryId,
      j.route,
      j.event || '-',
      j.status,
      j.step,
      String(j.attempts),
      isoTime(j.receivedAt),
      j.errors.at(-1)?.message ?? '',
    ]);
    // Whole ids: a replay's id is its original's plus '-replay-<ms>', and the id is what the next command takes.
    this.log(renderTable(['DELIVERY ID', 'ROUTE', 'EVENT', 'STATUS', 'STEP', 'ATTEMPTS', 'RECEIVED', 'LAST ERROR'], rows, { whole: [0] }));
    return jobs;
  }
}
