// The deliverer contract kit of @hookwise/testing, run by a third-party plugin on itself.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeDelivererContract } from '@hookwise/testing';
const { createFileDropDeliverer } = require('../..') as typeof import('../..');

describeDelivererContract(
  'file_drop',
  ({ scenario, test }) => {
    const dir = mkdtempSync(join(tmpdir(), 'file-drop-contract-'));
    // A regular file where the directory should be: writing fails with ENOTDIR, which no retry fixes.
    if (scenario === 'permanent') writeFileSync(join(dir, 'blocked'), '');
    return createFileDropDeliverer({ dir: scenario === 'permanent' ? join(dir, 'blocked') : dir, header: true }, test.ctx);
  },
  {
    textReachesApi: false,
    // A full disk (ENOSPC) cannot be produced here without root.
    skip: ['retryable'],
    verifyDelivered: (_world, receipt, message) => {
      expect(receipt.target).toMatch(/\.md$/);
      expect(readFileSync(receipt.target!, 'utf8')).toContain(message.text);
    },
  },
);
