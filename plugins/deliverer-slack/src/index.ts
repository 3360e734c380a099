export { default } from './plugin';
export * from './slack';
