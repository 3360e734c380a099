export { default } from './plugin';
export * from './bot-api';
