// `hookwise deliveries show <delivery-id>`: one job in full: prompt, answer, attempts, errors, timings, each destination,
// and what its run came to (tokens, silent or skipped, why it waits, the events a coalesced job stands for).
import { Args } from '@oclif/core';
import type { Job } from '@hookwise/core';
import { coalescedText, conversationLines, outcomeText, sandboxText, usageText, waitingNote, type ConversationView } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { profileFlag } from '../../profile-choice';
import { currentRoutePrompt, unresolvedInJob, unresolvedText } from '../../unresolved-placeholders';
import { withDeliveries } from '../../delivery-access';
import { isoTime } from '../../delivery-store';

export default class DeliveriesShow extends HookwiseCommand {
  static override description =
    'Show one delivery: its state, prompt, answer, attempts, errors and timings, the tokens its agent run used, how it ended (delivered, silent or skipped), why it waits, and the events a coalesced job stands for.';
  static override examples = ['<%= config.bin %> deliveries show 72d3162e-cc78-11e3-81ab-4c9367dc0958'];
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'Delivery id or job id, or a unique prefix of one (4 or more characters).', required: true }) };
  static override flags = { 'config-dir': configDirFlag, profile: profileFlag };

  async run(): Promise<Job & { unresolvedPlaceholders?: string[]; conversation?: ConversationView }> {
    const { args, flags } = await this.parse(DeliveriesShow);
    let job: Job;
    let conversation: ConversationView | undefined;
    const choice = this.readsConfigDir(flags);
    try {
      job = await withDeliveries(choice, async (deliveries) => {
        const found = await deliveries.find(args.id);
        conversation = await deliveries.conversation(found);
        return found;
      });
    } catch (err) {
      this.fail(err, true);
    }
    this.log(`Delivery ${job.deliveryId} (job ${job.id})`);
    this.log(`  route: ${job.route}   event: ${job.event || '-'}   status: ${job.status}   step: ${job.step}   attempts: ${job.attempts}`);
    this.log(
      `  received: ${isoTime(job.receivedAt)}   updated: ${isoTime(job.updatedAt)}   finished: ${isoTime(job.finishedAt)}${job.status === 'pending' ? `   next run: ${isoTime(job.runAt)}` : ''}`,
    );
    const outcome = outcomeText(job);
    if (outcome) this.log(`  outcome: ${outcome}`);
    if (job.outcome === 'silent' && job.note) this.log(`  note: ${job.note}`);
    const waiting = waitingNote(job);
    // When it runs is the "next run" above.
    if (waiting) this.log(`  waiting: ${waiting}`);
    const tokens = usageText(job.usage);
    if (tokens) this.log(`  tokens: ${tokens}`);
    const sandbox = sandboxText(job.usage);
    if (sandbox) this.log(`  sandbox: ${sandbox}`);
    const unresolved = unresolvedInJob(currentRoutePrompt(choice, job.route), job);
    if (unresolved.length) this.log(`  placeholders: ${unresolvedText(unresolved)}`);
    const coalesced = coalescedText(job);
    if (coalesced || job.coalesceKey !== undefined)
      this.log(`  coalesced: ${coalesced ?? 'one event'}${job.coalesceKey === undefined ? '' : `   key: ${job.coalesceKey}`}`);
    if (job.concurrencyKey !== undefined && job.concurrencyKey !== job.coalesceKey) this.log(`  concurrency key: ${job.concurrencyKey}`);
    for (const e of job.errors)
      this.log(
        `  error: ${isoTime(e.at)} ${e.step}${e.destination ? ` to ${e.destination}` : ''} attempt ${e.attempt}${e.retryable ? '' : ' (not retryable)'}: ${e.message}`,
      );
    // Each destination on its own: a fan-out's delivered destinations are never sent to again.
    for (const d of job.destinations ?? []) {
      this.log(`  destination ${d.destination}: ${d.status}   attempts: ${d.attempts}${d.deliveredAt ? `   delivered: ${isoTime(d.deliveredAt)}` : ''}`);
      if (d.receipt !== undefined) this.log(`    receipt: ${JSON.stringify(d.receipt)}`);
      const last = d.errors.at(-1);
      if (last && d.status !== 'delivered') this.log(`    last error: attempt ${last.attempt}${last.retryable ? '' : ' (not retryable)'}: ${last.message}`);
    }
    // The actions the agent asked for, each with its outcome: kept with the run's usage.
    type ActionShown = { index: number; action: string; status: string; attempts: number; reason?: string; receipt?: unknown };
    const actions = (job.usage as { actions?: ActionShown[] } | undefined)?.actions ?? [];
    if (actions.length) this.log('  actions:');
    for (const a of actions) {
      const tries = a.attempts > 1 || a.status === 'failed' ? ` after ${a.attempts} attempt${a.attempts === 1 ? '' : 's'}` : '';
      this.log(`    #${a.index} ${a.action}: ${a.status}${tries}${a.reason && a.status !== 'done' ? ` (${a.reason})` : ''}`);
      if (a.receipt !== undefined) this.log(`      receipt: ${JSON.stringify(a.receipt)}`);
    }
    // A conversation's turns, read from its records: the event, the answers and the replies so far.
    if (conversation) for (const line of conversationLines(conversation)) this.log(`  ${line}`);
    // The job's receipt is its destinations' (one, or all by name): printed once, under each destination when listed.
    if (job.receipt !== undefined && !job.destinations?.some((d) => d.receipt !== undefined)) this.log(`  receipt: ${JSON.stringify(job.receipt)}`);
    this.log(`\nPrompt:\n${job.prompt ?? '(not rendered yet)'}`);
    this.log(`\nAnswer:\n${job.answer ?? '(no answer yet)'}`);
    return { ...job, ...(unresolved.length ? { unresolvedPlaceholders: unresolved } : {}), ...(conversation ? { conversation } : {}) };
  }
}
