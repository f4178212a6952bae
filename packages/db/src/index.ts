export * from './caller';
export * from './client';
export * from './embedded';
export * from './embedded-password';
export * from './errors';
export * from './migrate';
export * from './rows';
export * as schema from './schema';
export * from './tenancy';
