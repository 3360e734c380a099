export { default } from './plugin';
export * from './signal';
