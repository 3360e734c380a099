export { default } from './plugin';
export * from './channel-api';
