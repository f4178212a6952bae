export * from './check-expressions';
export * from './interpolation';
export * from './schema';
export * from './stored-output';
export * from './trigger';
export * from './validate';
