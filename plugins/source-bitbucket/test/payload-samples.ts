// Documented Bitbucket Cloud payloads the source's tests post, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';

/** A pullrequest:created delivery shaped like the example on Bitbucket Cloud's "Event payloads" page, trimmed. */
export const PULLREQUEST_CREATED =
  '{"pullrequest":{"id":42,"title":"Add retry to the uploader","state":"OPEN","source":{"branch":{"name":"feature/retry"}},"destination":{"branch":{"name":"main"}},"links":{"html":{"href":"https://bitbucket.org/acme/widgets/pull-requests/42"}}},"actor":{"type":"user","display_name":"Jane Doe"},"repository":{"type":"repository","full_name":"acme/widgets"}}';

const samples: PayloadSample[] = [{ name: 'pullrequest:created', event: 'pullrequest:created', body: PULLREQUEST_CREATED }];
export default samples;
