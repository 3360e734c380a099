export { default } from './plugin';
export * from './telegram';
