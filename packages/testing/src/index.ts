export * from './api';
export * from './database';
export { freePort } from './global-setup';
