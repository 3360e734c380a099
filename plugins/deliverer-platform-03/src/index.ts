export { default } from './plugin';
export * from './workspace-api';
