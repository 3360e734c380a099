// Runs a gateway: the composition root (openGateway), pipeline, worker pool, plugin loader and registry, config,
// routes, subscriptions, the memory store and the store backend selection.
export * from './events';
export * from './body';
export * from './routes';
export * from './logger';
export * from './loader';
export * from './registry';
export * from './skills';
export * from './pipeline';
export * from './node-handler';
export * from './worker';
export * from './gateway';
export * from './builtins';
export * from './stores/memory';
export * from './stores/accept';
export * from './job-id';
export * from './config/schema';
export * from './config/env';
export * from './config/load';
export * from './subscriptions';
export * from './subscription-store';
export * from './stores/backend';
export * from './first-party';
export * from './open-gateway';
