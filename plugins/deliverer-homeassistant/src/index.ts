export { default } from './plugin';
export * from './homeassistant';
