export * from './client';
export * from './embedded';
export * from './errors';
export * from './migrate';
export * as schema from './schema';
export * from './tenancy';
