export * from './caller';
export * from './client';
export * from './embedded';
export { reachableDataDir, runsAsRoot } from './embedded-reach';
export * from './errors';
export * from './migrate';
export * from './rows';
export * as schema from './schema';
export * from './tenancy';
