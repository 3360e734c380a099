// The contracts a plugin author programs against; nothing here runs a gateway (that is @hookwise/gateway).
export * from './contracts';
export * from './errors';
export * from './plugin';
export * from './template';
export * from './headers';
export * from './stores/types';
