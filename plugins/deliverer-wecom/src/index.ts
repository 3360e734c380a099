export { default } from './plugin';
export * from './wecom';
