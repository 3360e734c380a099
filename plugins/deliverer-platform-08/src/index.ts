export { default } from './plugin';
export * from './posts-api';
