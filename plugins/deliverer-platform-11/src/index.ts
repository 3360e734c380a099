export { default } from './plugin';
export * from './custom-robot';
