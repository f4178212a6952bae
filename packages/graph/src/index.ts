export * from './check-expressions';
export * from './interpolation';
export * from './plan';
export * from './schema';
export * from './secret-headers';
export * from './stored-output';
export * from './trigger';
export * from './validate';
