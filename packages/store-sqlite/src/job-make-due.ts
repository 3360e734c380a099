// JobQueue.makeDue in SQLite: a waiting job's run_at becomes now, so that the next lease takes it (an
// approval decided while its job waits on a hold). Apart from job-statements.ts, which the accept path shares.
import type { Database, Statement } from 'better-sqlite3';

/**
 * Only a pending job changes. A job already due keeps its run_at (MIN), so its place among the due jobs, ordered
 * by (run_at, seq), stays; one made due now goes after those due earlier. Its note (why it waited) stays until its
 * lease clears it, as a hold's note does. One row changed means the job is pending.
 */
export function prepareMakeDue(db: Database): Statement {
  return db.prepare(`
    UPDATE jobs SET run_at = MIN(run_at, @now), updated_at = CASE WHEN run_at > @now THEN @now ELSE updated_at END
    WHERE seq = @seq AND id = @id AND status = 'pending'`);
}
