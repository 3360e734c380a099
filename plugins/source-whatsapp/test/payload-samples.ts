// Documented WhatsApp payloads the source's tests use, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const fixture = (name: string, event: string): PayloadSample => ({ name, event, body: readFileSync(join(__dirname, 'fixtures', `${name}.json`), 'utf8') });

const samples: PayloadSample[] = [fixture('text-message', 'messages'), fixture('reply-message', 'messages'), fixture('status-sent', 'statuses')];
export default samples;
