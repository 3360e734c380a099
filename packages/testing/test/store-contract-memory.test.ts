import { createMemoryStore } from '@hookwise/gateway';
import { storeContractCases } from '../src/store-contract';

describe('memory store contract', () => {
  for (const c of storeContractCases({ open: async () => createMemoryStore() })) it(c.name, c.run);
});
