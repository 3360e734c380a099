// The checkpoint thread reports why it failed (issue 20 item 5: the store's warning read "[object Object]").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCheckpointer } from '../../src/checkpointer';

describe('the checkpoint thread', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hookwise-checkpointer-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("hands the SQLite error's code and message to onError, not a bare object", async () => {
    const file = join(dir, 'not-a-database.sqlite');
    writeFileSync(file, 'this is a text file, not an SQLite database\n'.repeat(200));
    const failure = await new Promise<Error>((resolve) => {
      const checkpointer = startCheckpointer({ file, synchronous: 'normal', onError: resolve });
      void checkpointer;
    });
    expect(failure).toBeInstanceOf(Error);
    expect(failure.message).toBe('SQLITE_NOTADB: file is not a database');
    expect(String(failure)).not.toContain('[object Object]');
  });
});
