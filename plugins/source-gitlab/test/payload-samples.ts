// Documented GitLab payloads the source's tests post, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';

import { issueNote, mergeRequestNote } from './fixtures/note-hooks';

/** A merge request hook, trimmed to what the source reads. */
export const MERGE_REQUEST = JSON.stringify({ object_kind: 'merge_request', event_type: 'merge_request', object_attributes: { iid: 1, action: 'open' } });

const samples: PayloadSample[] = [
  { name: 'merge request opened', event: 'Merge Request Hook', body: MERGE_REQUEST },
  { name: 'comment on a merge request', event: 'Note Hook', payload: mergeRequestNote() },
  { name: 'comment on an issue', event: 'Note Hook', payload: issueNote() },
];
export default samples;
