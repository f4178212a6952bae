export * from './api-keys';
export * from './audit-logs';
export * from './idempotency-keys';
export * from './organizations';
export * from './rate-limit-counters';
export * from './users';
export * from './workflows';
