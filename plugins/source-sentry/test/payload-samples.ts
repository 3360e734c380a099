// Documented Sentry payloads the source's tests post, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';

/** The example on Sentry's "Comments" webhook page, serialised as Sentry sends it (Python json.dumps). */
export const COMMENT_CREATED =
  '{"action": "created", "installation": {"uuid": "eac5a0ae-60ec-418f-9318-46dc5e7e52ec"}, "data": {"comment": "adding a comment", "project_slug": "sentry", "comment_id": 1234, "issue_id": 100, "timestamp": "2022-03-02T21:51:44.118160Z"}, "actor": {"type": "user", "id": 1, "name": "colleen"}}';

const samples: PayloadSample[] = [{ name: 'comment.created', event: 'comment.created', body: COMMENT_CREATED }];
export default samples;
