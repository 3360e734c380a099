export { default } from './plugin';
export * from './smtp-mail';
export * from './smtp-failure';
