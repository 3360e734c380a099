import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { storeContractCases } from '@hookwise/testing';
import { openSqliteStore } from '../../src';

describe('SQLite store contract', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hookwise-sqlite-'));
  let n = 0;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const c of storeContractCases({ open: async () => openSqliteStore({ file: path.join(dir, `store-${(n += 1)}.sqlite`) }) })) it(c.name, c.run);
});
