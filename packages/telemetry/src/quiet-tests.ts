import { configureLogging } from './logger';

/**
 * Vitest setup file: test processes log at `warn`, so a run shows failures, not an access-log line
 * per request. A test that reads log lines passes its own logger (createApp's `logger`).
 */
configureLogging({ level: 'warn' });
