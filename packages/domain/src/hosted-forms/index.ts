export * from './fields';
export * from './submit';
