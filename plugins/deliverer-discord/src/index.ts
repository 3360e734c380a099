export { default } from './plugin';
export * from './discord';
