// Documented Slack payloads the source's tests use, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR } from '@hookwise/testing';
import { APP_MENTION, BLOCK_ACTIONS_FORM } from './fixtures';

const kit = (name: string): PayloadSample => ({ name, event: 'message', body: readFileSync(join(FIXTURES_DIR, 'slack', `${name}.json`), 'utf8') });

const samples: PayloadSample[] = [
  { name: 'app_mention event_callback', event: 'app_mention', body: APP_MENTION },
  { name: 'block_actions (form payload)', event: 'block_actions', body: BLOCK_ACTIONS_FORM, contentType: 'application/x-www-form-urlencoded' },
  kit('message.channels.event_callback'),
  kit('message.file_share.event_callback'),
  kit('message.message_replied.event_callback'),
  kit('message.thread_broadcast.event_callback'),
];
export default samples;
