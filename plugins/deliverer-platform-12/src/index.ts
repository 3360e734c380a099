export { default } from './plugin';
export * from './open-platform';
