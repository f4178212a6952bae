import { z } from 'zod';
import { defineNodeType, MAIN_OUTPUT } from '../define';

export const CodeConfig = z.object({
  /** JavaScript run in a QuickJS WASM sandbox; `input` holds trigger and node outputs; return a JSON value. */
  code: z.string().min(1).max(100_000),
  timeout_ms: z.number().int().min(10).max(30_000).default(1_000),
  memory_mb: z.number().int().min(1).max(256).default(32),
});

export const code = defineNodeType({
  type: 'action.code',
  name: 'Code',
  category: 'data',
  description: 'Runs JavaScript in a sandbox with CPU-time and memory limits and no I/O.',
  config: CodeConfig,
  output: z.unknown(),
  outputs: MAIN_OUTPUT,
  runsIn: 'activity',
});
