// Documented Matrix payloads the source's tests use, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR } from '@hookwise/testing';

const read = (path: string): PayloadSample => ({ name: path, body: readFileSync(path, 'utf8') });

const samples: PayloadSample[] = [
  ...['transaction', 'reply-transaction'].map((name) => read(join(__dirname, 'fixtures', `${name}.json`))),
  ...['transaction.thread', 'transaction.rich_reply'].map((name) => read(join(FIXTURES_DIR, 'matrix', `${name}.json`))),
];
export default samples;
