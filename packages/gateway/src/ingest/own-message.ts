// The gateway's own message coming back from a platform (Source.ownMessage: a bot's post echoed as an event) is
// ignored as a filtered event is, so a route that answers in a channel never answers itself. The first ingest hook
// of every pipeline: a reply hook after it never takes the gateway's own message for a person's.
import type { IngestHook } from './ingest-hooks';

export const ownMessageHook: IngestHook = {
  name: 'own-message',
  event: ({ source, payload }) =>
    source?.source.ownMessage?.(payload) === true
      ? { filtered: { passed: false, reason: "the gateway's own message, sent back by the platform", by: 'own_message' } }
      : undefined,
};
