// Where transforms join the request path: a wanted event of a route with `transform:` is rewritten (or dropped as
// silent, or refused 503 when the transform fails) after verification and before the route's filter.
import type { IngestHook } from '../ingest/ingest-hooks';
import type { Transforms } from './transforms';

export function transformStep(transforms: Pick<Transforms, 'apply'>): IngestHook {
  return {
    name: 'transforms',
    async event({ route, wanted, payload, payloadJson, deliveryId }) {
      if (!wanted || !route.transform) return undefined;
      const t = await transforms.apply(route, payload, payloadJson, deliveryId);
      if (t.kind === 'reject') return { answer: { status: 503, body: { error: t.error, reason: 'transform' }, headers: { 'Retry-After': '30' } } };
      if (t.kind === 'silent') return { filtered: { passed: false, reason: t.reason, by: 'transform' } };
      return { payload: t.payload, payloadJson: t.json };
    },
  };
}
