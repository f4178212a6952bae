export * from './logger';
export * from './metrics';
export * from './metrics-access';
export * from './metrics-server';
export * from './redact';
export * from './test-logs';
