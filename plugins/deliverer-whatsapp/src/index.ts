export { default } from './plugin';
export * from './whatsapp';
