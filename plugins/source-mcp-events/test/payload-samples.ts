// Occurrences an upstream MCP Events server delivers, as the source's tests build them: the stored payload is their data.
import type { PayloadSample } from '@hookwise/testing';

const delivery = (data: unknown) => JSON.stringify({ eventId: 'evt-1', name: 'deploys', timestamp: '2026-01-01T00:00:00Z', data });

const samples: PayloadSample[] = [
  { name: 'an occurrence with data', event: 'deploys', body: delivery({ env: 'prod', service: 'api' }) },
  { name: 'an occurrence with empty data', event: 'deploys', body: delivery({}) },
];
export default samples;
