export * from './gateway-harness';
export * from './recording-server';
export * from './store-contract';
export * from './plugin-context';
export * from './redis-server';
