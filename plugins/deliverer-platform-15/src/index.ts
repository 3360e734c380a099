export { default } from './plugin';
export * from './server-api';
