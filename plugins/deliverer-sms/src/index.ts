export { default } from './plugin';
export * from './sms';
