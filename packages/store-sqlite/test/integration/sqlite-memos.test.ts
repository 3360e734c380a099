// Issue 30 in the SQLite file itself: memos (schema 9) survive closing and reopening the file, are shared by two
// stores on one file, are purged once expired, and a schema-8 file is upgraded with its jobs kept.
import Database from 'better-sqlite3';
import { type SqliteStore } from '../../src';
import { SCHEMA_VERSION, migrate } from '../../src/schema';
import { sqliteStoresPerTest } from '../sqlite-temp-dir';

describe('SQLite store memos', () => {
  const tmp = sqliteStoresPerTest('hookwise-sqlite-memos-');
  const open = (now?: () => number): SqliteStore => tmp.open({ now, backgroundCheckpoints: false });

  it('keeps a memo across closing and reopening the file, and shares it with another store on the file', async () => {
    const first = open();
    await first.memos.set('github_comment:sticky:octo/repo#7', '1001');
    await first.memos.set('short', 'lived', 60_000);
    const second = open();
    expect(await second.memos.get('github_comment:sticky:octo/repo#7')).toBe('1001');
    await second.memos.set('github_comment:sticky:octo/repo#7', '2002');
    expect(await first.memos.get('github_comment:sticky:octo/repo#7')).toBe('2002');
    await first.close();
    await second.close();

    const reopened = open();
    expect(await reopened.memos.get('github_comment:sticky:octo/repo#7')).toBe('2002');
    expect(await reopened.memos.get('short')).toBe('lived');
  });

  it('purges expired memos and keeps those without an expiry', async () => {
    let clock = 1_000_000;
    const store = open(() => clock);
    await store.memos.set('forever', 'a');
    await store.memos.set('brief', 'b', 1_000);
    clock += 1_001;
    expect(await store.memos.get('brief')).toBeUndefined();
    await store.purge();
    const check = new Database(tmp.file, { readonly: true });
    expect(check.prepare('SELECT key FROM memos ORDER BY key').pluck().all()).toEqual(['forever']);
    check.close();
  });

  it('upgrades a schema-8 file to the current schema: its jobs are kept and memos work', async () => {
    expect(SCHEMA_VERSION).toBe(10);
    const old = new Database(tmp.file);
    migrate(old, tmp.file, 8);
    old.close();
    const store = open();
    const check = new Database(tmp.file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(check.prepare(`SELECT sql FROM sqlite_master WHERE name = 'memos_expiry'`).pluck().get()).toMatch(/WHERE expires_at IS NOT NULL/);
    check.close();
    await store.memos.set('k', 'v');
    expect(await store.memos.get('k')).toBe('v');
  });
});
