export * from './check-expressions';
export * from './interpolation';
export * from './schema';
export * from './trigger';
export * from './validate';
