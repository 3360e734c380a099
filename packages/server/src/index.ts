export * from './app';
export * from './start';
export * from './store';
export * from './first-party';
