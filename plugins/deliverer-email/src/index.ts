export { default } from './plugin';
export * from './email';
export * from './smtp-failure';
