export { default } from './plugin';
export * from './cloud-api';
