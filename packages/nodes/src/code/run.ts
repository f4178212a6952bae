import { NodeRunError, type NodeRunner } from '../runner';
import { CodeRunError, runSandboxedCode } from './sandbox';
import { CodeConfig } from './schema';

/** action.code: the user's JavaScript in the QuickJS sandbox, with every upstream output as `input`. */
export const codeRunner: NodeRunner = {
  async run(rawConfig, ctx) {
    const config = CodeConfig.parse(rawConfig);
    try {
      return await runSandboxedCode({
        code: config.code,
        input: { trigger: ctx.input.trigger, nodes: ctx.input.nodes ?? {}, loop: ctx.input.loop ?? null },
        timeoutMs: config.timeout_ms,
        memoryMb: config.memory_mb,
      });
    } catch (error) {
      // User code fails the same way every time: no point retrying. Anything else may be transient.
      if (error instanceof CodeRunError) throw new NodeRunError(error.code, error.message, false);
      throw error;
    }
  },
};
