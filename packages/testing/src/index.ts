export * from './recording-server';
export * from './plugin-context';
