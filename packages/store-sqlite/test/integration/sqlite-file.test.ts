import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '@hookwise/gateway';
import { jobInput } from '@hookwise/testing';
import Database from 'better-sqlite3';
import { createStore, openSqliteStore, type SqliteStore } from '../../src';
import { sqliteStoresPerTest } from '../sqlite-temp-dir';

// The SQLite store's file: its log copied on its own thread, close() in an idle process, the schema version and
// the synchronous setting it is opened with, and what it says when it cannot open it.

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

describe('SQLite store: the file', () => {
  const tmp = sqliteStoresPerTest();
  const { open } = tmp;

  it('copies the log into the file on its own thread once the gateway accepts, and stops it on close', async () => {
    const fileSize = (store: SqliteStore) => statSync(store.file).size;
    const fill = async (store: SqliteStore) => {
      for (let batch = 0; batch < 10; batch += 1) {
        await Promise.all(
          Array.from({ length: 50 }, () => {
            const job = jobInput({ payload: { text: 'x'.repeat(2000) } });
            return store.accept({ route: job.route, deliveryId: job.deliveryId, rateLimit: 10_000, maxPending: 10_000, job });
          }),
        );
      }
    };
    const waitFor = async (check: () => boolean) => {
      for (let i = 0; i < 100 && !check(); i += 1) await new Promise((r) => setTimeout(r, 20));
      return check();
    };
    // Without the thread, 500 jobs (about 300 pages) stay in the log: SQLite checkpoints at 1,000 pages.
    const inline = open({ backgroundCheckpoints: false, file: path.join(tmp.dir, 'inline.sqlite') });
    const inlineBefore = fileSize(inline);
    await fill(inline);
    expect(fileSize(inline)).toBe(inlineBefore);

    const store = open();
    const before = fileSize(store);
    await fill(store);
    expect(await waitFor(() => fileSize(store) > before + 500 * 2000)).toBe(true);
    await store.close();
    // The last connection closed: everything is in the file and the log is gone.
    expect(existsSync(`${store.file}-wal`)).toBe(false);
    const reopened = open();
    expect(await reopened.jobs.pendingCount()).toBe(500);
  });

  it('finishes close() in a process with nothing else to do (the checkpoint thread does not let it end early)', async () => {
    const file = path.join(tmp.dir, 'child.sqlite');
    const script = `
      const { openSqliteStore } = require(${JSON.stringify(path.join(TEST_DIR, '..', 'src'))});
      (async () => {
        const store = openSqliteStore({ file: ${JSON.stringify(file)} });
        const job = { route: 'ci', event: 'push', deliveryId: 'd-1', payload: { n: 1 }, receivedAt: Date.now() };
        console.log((await store.accept({ route: 'ci', deliveryId: 'd-1', rateLimit: 10, maxPending: 10, job })).outcome);
        await store.close();
        console.log('closed');
      })();`;
    const repo = path.join(TEST_DIR, '..', '..', '..');
    const child = spawn(process.execPath, ['-r', 'ts-node/register', '-e', script], {
      cwd: repo,
      env: { ...process.env, TS_NODE_PROJECT: path.join(repo, 'tsconfig.test.json'), TS_NODE_TRANSPILE_ONLY: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect({ code, output: output.trim() }).toEqual({ code: 0, output: 'accepted\nclosed' });
    expect(existsSync(`${file}-wal`)).toBe(false);
  }, 30_000);

  it('refuses a file written by a newer schema, saying what to do', () => {
    const file = path.join(tmp.dir, 'future.sqlite');
    const raw = new Database(file);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => openSqliteStore({ file })).toThrow(/schema version 99.*upgrade Hookwise or point store\.path/);
  });

  it('uses WAL with synchronous NORMAL by default and FULL when store.synchronous is full', async () => {
    const pragmas = (file: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return { journal: db.pragma('journal_mode', { simple: true }) };
      } finally {
        db.close();
      }
    };
    const normal = open();
    expect(pragmas(normal.file)).toEqual({ journal: 'wal' });
    await normal.close();
    const logger = createLogger({ silent: true });
    const full = (await createStore({
      config: { backend: 'sqlite', max_pending: 10, path: 'full.sqlite', synchronous: 'full' },
      configDir: tmp.dir,
      logger,
    })) as SqliteStore;
    const normalToo = (await createStore({ config: { backend: 'sqlite', max_pending: 10, path: 'normal.sqlite' }, configDir: tmp.dir, logger })) as SqliteStore;
    // `synchronous` is a per-connection setting: read it through the store's own connection.
    expect(full.synchronousMode()).toBe('full');
    expect(normalToo.synchronousMode()).toBe('normal');
    await full.close();
    await normalToo.close();
  });

  it('says where and why when the file cannot be opened', () => {
    expect(() => openSqliteStore({ file: path.join(tmp.dir, 'not-a-db.sqlite', '..', '..', path.basename(tmp.dir)) })).toThrow(
      /cannot open the SQLite store at .*store\.path/,
    );
  });
});
