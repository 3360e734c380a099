export { default } from './plugin';
export * from './dingtalk';
