export * from './api';
export * from './canaries';
export * from './database';
export * from './engine-harness';
export { freePort } from './global-setup';
export * from './requests';
export * from './temporal';
