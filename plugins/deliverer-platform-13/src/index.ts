export { default } from './plugin';
export * from './work-api';
