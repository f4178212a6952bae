export * from './schema';
export * from './trigger';
export * from './validate';
