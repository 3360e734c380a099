export { default } from './plugin';
export * from './client-server-api';
