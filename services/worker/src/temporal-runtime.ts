import {
  type LogMetadata,
  makeTelemetryFilterString,
  Runtime,
  type Logger as TemporalLogger,
  type LogLevel as TemporalLogLevel,
} from '@temporalio/worker';
import type { Logger, LogLevel } from '@weft/telemetry';

const LEVELS: Record<TemporalLogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * Temporal's logger interface over ours: SDK, workflow (`log` from @temporalio/workflow, through
 * its sink) and activity (`Context.current().log`) lines become JSON lines of the process's
 * logger, with the SDK's attributes (sdkComponent, workflowId, runId, activityType …) as fields.
 */
export function temporalLoggerOver(logger: Logger): TemporalLogger {
  const write = (level: TemporalLogLevel, message: string, meta?: LogMetadata) => {
    const { error, ...fields } = meta ?? {};
    // pino serializes errors under `err` (message, type and stack).
    logger[LEVELS[level]]({ ...fields, ...(error === undefined ? {} : { err: error }) }, message);
  };
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}

/** The Rust core's own log level: its info lines are chatty, so it says only warnings unless asked. */
function coreLevel(level: LogLevel): TemporalLogLevel {
  if (level === 'trace') return 'TRACE';
  if (level === 'debug') return 'DEBUG';
  return 'WARN';
}

export interface TemporalRuntimeOptions {
  /** The logger SDK lines go to (give it a `component` of its own). */
  logger: Logger;
  level: LogLevel;
  /** `host:port` where the core serves the SDK's metrics at /metrics (TEMPORAL_SDK_METRICS_PORT); unset = off. */
  metricsBindAddress?: string;
}

/**
 * Installs the Temporal runtime of this process, before any worker or native connection exists
 * (the SDK allows one per process): its logs, the core's forwarded ones included, go to our
 * logger, and the core exports its metrics (workflow task and activity latencies, slots, polls)
 * in Prometheus format. When the metrics port is taken (a second worker on the machine), the
 * worker runs without them rather than not at all.
 */
export function installTemporalRuntime(options: TemporalRuntimeOptions): { metricsUrl?: string } {
  const { logger } = options;
  const base = {
    logger: temporalLoggerOver(logger),
    telemetryOptions: {
      logging: {
        filter: makeTelemetryFilterString({ core: coreLevel(options.level), other: 'WARN' }),
        forward: {},
      },
    },
  };
  if (options.metricsBindAddress) {
    try {
      Runtime.install({
        ...base,
        telemetryOptions: {
          ...base.telemetryOptions,
          metrics: {
            prometheus: {
              bindAddress: options.metricsBindAddress,
              // Prometheus conventions: counters end in _total, durations are in seconds.
              countersTotalSuffix: true,
              unitSuffix: true,
              useSecondsForDurations: true,
            },
          },
        },
      });
      return { metricsUrl: `http://${options.metricsBindAddress}/metrics` };
    } catch (error) {
      logger.error(
        { err: error, bind_address: options.metricsBindAddress },
        'Temporal SDK metrics are off: the exporter could not start',
      );
    }
  }
  Runtime.install(base);
  return {};
}
