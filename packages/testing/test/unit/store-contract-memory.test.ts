// The memory store (the built-in plugin's `memory` contribution) against the store contract.
import { createMemoryStore } from '@hookwise/gateway';
import { describeStoreContract } from '../../src/store-contract';

describeStoreContract('memory', async () => createMemoryStore());
