export { default } from './plugin';
export * from './official-account';
