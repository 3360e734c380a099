// Documented Shopify payloads the source's tests use, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';
import { PRODUCTS_UPDATE } from './fixtures';

const samples: PayloadSample[] = [{ name: 'products/update', event: 'products/update', body: PRODUCTS_UPDATE }];
export default samples;
