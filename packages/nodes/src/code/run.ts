import { NodeRunError, type NodeRunner } from '../runner';
import { CodeRunError, runSandboxedCodeWithLogs } from './sandbox';
import { CodeConfig, type CodeOutputWithLogs } from './schema';

/** action.code: the user's JavaScript in the QuickJS sandbox, with every upstream output as `input`. */
export const codeRunner: NodeRunner = {
  async run(rawConfig, ctx) {
    const config = CodeConfig.parse(rawConfig);
    try {
      const { value, logs } = await runSandboxedCodeWithLogs({
        code: config.code,
        input: { trigger: ctx.input.trigger, nodes: ctx.input.nodes ?? {}, loop: ctx.input.loop ?? null },
        timeoutMs: config.timeout_ms,
        memoryMb: config.memory_mb,
        organizationId: ctx.organizationId,
      });
      if (!config.capture_logs) return value;
      const output: CodeOutputWithLogs = { result: value, logs: logs.lines, logs_truncated: logs.truncated };
      return output;
    } catch (error) {
      // User code fails the same way every time: no point retrying.
      if (error instanceof CodeRunError) throw new NodeRunError(error.code, error.message, false);
      // The sandbox could not run the code (shutting down, could not start): another attempt may,
      // under a code of ours rather than whatever the error is named.
      const reason = error instanceof Error ? error.message : String(error);
      throw new NodeRunError('code_sandbox_unavailable', `the code sandbox is unavailable: ${reason}`, true);
    }
  },
};
