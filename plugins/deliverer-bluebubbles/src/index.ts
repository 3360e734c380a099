export { default } from './plugin';
export * from './bluebubbles';
