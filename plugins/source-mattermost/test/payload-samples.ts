// Documented Mattermost payloads the source's tests use, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

const samples: PayloadSample[] = [
  { name: 'outgoing webhook (JSON)', event: 'outgoing_webhook', body: fixture('outgoing.json') },
  { name: 'outgoing webhook (form)', event: 'outgoing_webhook', body: fixture('outgoing.form'), contentType: 'application/x-www-form-urlencoded' },
];
export default samples;
