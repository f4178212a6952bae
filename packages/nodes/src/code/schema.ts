import { z } from 'zod';
import { defineNodeType, MAIN_OUTPUT } from '../define';
import { CodeLogLine } from './logs';
import { codeWorkflow } from './workflow';

export const CodeConfig = z.object({
  /** JavaScript run in a QuickJS WASM sandbox; `input` holds trigger and node outputs; return a JSON value. */
  code: z.string().min(1).max(100_000),
  timeout_ms: z.number().int().min(10).max(30_000).default(1_000),
  memory_mb: z.number().int().min(1).max(256).default(32),
  /**
   * Keep what the code writes with console.log/info/warn/error/debug (up to 100 lines, 8,192
   * characters). The output then becomes `{ result, logs, logs_truncated }` (CodeOutputWithLogs)
   * instead of the returned value itself; off by default, so `{{nodes.<id>.field}}` references of
   * existing workflows keep reading the returned value.
   */
  capture_logs: z.boolean().default(false),
});

/** The output with `capture_logs`: the returned value under `result`, and the console lines. */
export const CodeOutputWithLogs = z.object({
  result: z.unknown(),
  logs: z.array(CodeLogLine),
  logs_truncated: z.boolean(),
});
export type CodeOutputWithLogs = z.infer<typeof CodeOutputWithLogs>;

export const code = defineNodeType({
  type: 'action.code',
  name: 'Code',
  category: 'data',
  description: 'Runs JavaScript in a sandbox with CPU-time and memory limits and no I/O.',
  icon: 'code',
  config: CodeConfig,
  // The returned value (any JSON), or CodeOutputWithLogs with capture_logs: one schema cannot say
  // which, so it stays open.
  output: z.unknown(),
  outputs: MAIN_OUTPUT,
  workflow: codeWorkflow,
  runner: async () => (await import('./run')).codeRunner,
});
