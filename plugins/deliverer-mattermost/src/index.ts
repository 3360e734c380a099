export { default } from './plugin';
export * from './mattermost';
