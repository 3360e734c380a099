// Documented Gitea payloads the source's tests post, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';

// A pull_request "opened" delivery in the shape of Gitea's webhook payloads (docs.gitea.com, "Webhooks"), trimmed.
export const PULL_REQUEST = JSON.stringify({
  action: 'opened',
  number: 7,
  pull_request: {
    id: 1207,
    number: 7,
    title: 'Add retry to the uploader',
    state: 'open',
    html_url: 'http://localhost:3000/gitea/webhooks/pulls/7',
    head: { ref: 'feature/retry' },
    base: { ref: 'master' },
  },
  repository: { id: 140, name: 'webhooks', full_name: 'gitea/webhooks' },
  sender: { id: 1, login: 'gitea' },
});

const samples: PayloadSample[] = [
  { name: 'pull_request opened', event: 'pull_request', body: PULL_REQUEST },
  { name: 'pull_request synchronized (Forgejo)', event: 'pull_request_sync', body: PULL_REQUEST.replace('"opened"', '"synchronized"') },
];
export default samples;
