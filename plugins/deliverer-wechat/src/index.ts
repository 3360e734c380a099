export { default } from './plugin';
export * from './wechat';
