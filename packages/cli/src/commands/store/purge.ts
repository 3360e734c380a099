// `hookwise store purge`: deletes the stored work (payloads, answers, tokens) of done jobs older than a cutoff now,
// instead of waiting for the store's own purge after store.retention.jobs_days.
import { Flags } from '@oclif/core';
import { DEFAULT_JOBS_RETENTION_DAYS, HookwiseError } from '@hookwise/core';
import { parseSince } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { loadChosen, profileFlag } from '../../profile-choice';
import { storeHasData, withDeliveryStore } from '../../delivery-store';

interface PurgeAnswer {
  /** Done jobs deleted (or, with --dry-run, that would be). */
  jobs: number;
  /** The cutoff: jobs that finished before it. */
  finishedBefore: string;
  dryRun: boolean;
}

export default class StorePurge extends HookwiseCommand {
  static override description =
    'Delete done jobs (payload, prompt, answer, tokens) that finished before a cutoff: --older-than, default store.retention.jobs_days (7). Dead letters and waiting jobs are kept. Stores also do this on their own once jobs pass the retention.';
  static override examples = [
    '<%= config.bin %> store purge --older-than 30d --dry-run',
    '<%= config.bin %> store purge --older-than 30d',
    '<%= config.bin %> store purge --older-than 2026-01-01',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    'config-dir': configDirFlag,
    profile: profileFlag,
    'older-than': Flags.string({
      description: 'Jobs that finished longer ago than this (30m, 24h, 30d) or before this time (ISO 8601). Default: store.retention.jobs_days.',
    }),
    'dry-run': Flags.boolean({ description: 'Count the jobs that would be deleted; delete nothing.', default: false }),
  };

  async run(): Promise<PurgeAnswer> {
    const { flags } = await this.parse(StorePurge);
    const choice = this.readsConfigDir(flags);
    let answer: PurgeAnswer;
    try {
      const { config, configDir } = loadChosen(choice);
      const days = (config.store.retention as { jobs_days?: number } | undefined)?.jobs_days ?? DEFAULT_JOBS_RETENTION_DAYS;
      const cutoff = parseSince(flags['older-than'] ?? `${Math.round(days * 24 * 60)}m`);
      if (typeof cutoff !== 'number') throw new HookwiseError('HW_E_CONFIG', `--older-${cutoff.problem.replace(/^since/, 'than')}`);
      const finishedBefore = new Date(cutoff).toISOString();
      if (!storeHasData(config, configDir)) {
        if (config.store.backend === 'memory')
          throw new HookwiseError(
            'HW_E_STORE',
            'store.backend is memory: its jobs live only inside the running gateway (at most 1,000 done ones) and are gone when it stops; nothing to purge',
          );
        answer = { jobs: 0, finishedBefore, dryRun: flags['dry-run'] };
      } else {
        answer = await withDeliveryStore(choice, async (store) => {
          if (!store.jobs.purgeFinished)
            throw new HookwiseError(
              'HW_E_STORE',
              `store '${config.store.backend}' cannot purge on demand (its job queue has no purgeFinished; see the store contract): it deletes old jobs by its own rules, or upgrade the store package`,
            );
          return { jobs: await store.jobs.purgeFinished(cutoff, { dryRun: flags['dry-run'] }), finishedBefore, dryRun: flags['dry-run'] };
        });
      }
    } catch (err) {
      this.fail(err, true);
    }
    const when = answer.finishedBefore.slice(0, 19).replace('T', ' ');
    this.log(
      answer.dryRun
        ? `${answer.jobs} done job(s) finished before ${when} UTC would be deleted (dry run: nothing deleted).`
        : `Deleted ${answer.jobs} done job(s) finished before ${when} UTC; dead letters and waiting jobs are kept.`,
    );
    return answer;
  }
}
