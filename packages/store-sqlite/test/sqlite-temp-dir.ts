// The jest hooks of the tests on real SQLite files: a new temp dir for each test, and after it every store the
// test opened closed and the dir removed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from '../src';

export interface SqliteTempDir {
  /** The running test's dir (read it inside a test: each gets a new one). */
  readonly dir: string;
  /** <dir>/hookwise.sqlite, the file `open` uses unless the options name another. */
  readonly file: string;
  /** Opens a store on `file`, closed when the test ends. */
  open(options?: Partial<SqliteStoreOptions>): SqliteStore;
}

export function sqliteStoresPerTest(prefix = 'hookwise-sqlite-'): SqliteTempDir {
  let dir: string | undefined;
  const opened: SqliteStore[] = [];
  const current = () => {
    if (!dir) throw new Error('the SQLite temp dir is made for each test: read it inside it(...), not at the top of the file');
    return dir;
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), prefix));
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    rmSync(current(), { recursive: true, force: true });
    dir = undefined;
  });
  const temp: SqliteTempDir = {
    get dir() {
      return current();
    },
    get file() {
      return path.join(current(), 'hookwise.sqlite');
    },
    open(options = {}) {
      const store = openSqliteStore({ file: temp.file, ...options });
      opened.push(store);
      return store;
    },
  };
  return temp;
}
