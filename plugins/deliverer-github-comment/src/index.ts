export { default } from './plugin';
export * from './comment-deliverer';
export * from './comment-target';
