// Documented Stripe payloads the source's tests use, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';
import { EVENT_EXAMPLE } from './fixtures';

const samples: PayloadSample[] = [{ name: 'the Event object example', event: 'customer.created', body: EVENT_EXAMPLE }];
export default samples;
