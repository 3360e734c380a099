export { default } from './plugin';
export * from './feishu';
