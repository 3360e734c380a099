export { default } from './plugin';
export * from './matrix';
