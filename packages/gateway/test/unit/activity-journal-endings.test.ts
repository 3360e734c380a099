// The dashboard's per-minute counts of jobs that end silent and of runs a budget refused.
import { ActivityJournal } from '../../src/observe/activity-journal';
import { Lifecycle } from '../../src/observe/lifecycle';

const AT = Date.UTC(2026, 10, 24, 13, 20);
const job = { jobId: 'j1', route: 'review', deliveryId: 'd1', event: 'pull_request', attempt: 1 };

describe('ActivityJournal endings', () => {
  it('counts silent jobs and budget refusals per minute, and not as deliveries', () => {
    const lifecycle = new Lifecycle();
    const journal = new ActivityJournal(lifecycle, { now: () => AT });
    lifecycle.emit('completed', { ...job, outcome: 'silent', destinations: [], note: 'the agent answered [SILENT]: nothing delivered' });
    lifecycle.emit('completed', { ...job, jobId: 'j2', outcome: 'delivered', destinations: ['slack'] });
    const note = 'route budget runs_per_hour (2) spent; waiting until 2026-11-24T14:00:00Z';
    lifecycle.emit('budget_exceeded', { ...job, jobId: 'j3', scope: 'route', budget: 'runs_per_hour', limit: 2, action: 'wait', until: AT, note });
    const [minute] = journal.series(1);
    expect(minute).toMatchObject({ silent: 1, budgetRefused: 1, delivered: 0 });
    journal.close();
  });
});
