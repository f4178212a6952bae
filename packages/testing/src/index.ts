export { freeLoopbackPort as freePort } from '@weft/config';
export * from './api';
export * from './canaries';
export * from './database';
export * from './engine-harness';
export * from './requests';
export * from './temporal';
