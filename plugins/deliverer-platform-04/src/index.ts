export { default } from './plugin';
export * from './json-rpc-daemon';
