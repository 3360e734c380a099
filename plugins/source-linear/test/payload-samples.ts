// Documented Linear payloads the source's tests use, checked against its payload schema (src/payload-schema.ts).
import type { PayloadSample } from '@hookwise/testing';
import { commentCreate } from './fixtures';

const samples: PayloadSample[] = [{ name: 'Comment create', event: 'Comment.create', body: commentCreate() }];
export default samples;
