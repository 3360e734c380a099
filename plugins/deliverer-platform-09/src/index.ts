export { default } from './plugin';
export * from './rest-api';
