import { type AiMessage, type AiPart, type AiToolCall, userText } from '../shared/ai/messages';
import { defineWorkflowNode } from '../workflow-node';
import type {
  AgentModelRequest,
  AgentModelResult,
  AgentTool,
  AgentToolResult,
  AgentToolSource,
} from './contract';

interface RenderedAgentConfig {
  prompt: string;
  system?: string;
  model?: string;
  tools: AgentToolSource[];
  max_steps: number;
  output_schema?: Record<string, unknown>;
  memory?: { key: string; window: number };
  max_tokens: number;
}

interface ToolCallRecord {
  id: string;
  name: string;
  arguments: unknown;
  result?: unknown;
  error?: string;
  step: number;
  duration_ms: number;
  execution_id?: string;
  approval?: unknown;
}

/** How long a tool call waits for its approval before it counts as rejected. */
const APPROVAL_TIMEOUT_MS = 24 * 3_600_000;

const REPAIR_PROMPT =
  'Your last answer is not valid: {error}. Answer again with only a JSON value that satisfies the required JSON Schema.';

/**
 * action.ai.agent: the agent loop runs here, in workflow code, and each model call and each tool
 * call is its own activity (ctx.agent), so a crashed worker resumes the loop from its history
 * without repeating a completed call. A turn's tool calls run concurrently; their results go back
 * to the model in call order.
 */
export const aiAgentWorkflow = defineWorkflowNode({
  type: 'action.ai.agent',
  runsIn: 'workflow',
  inReplay: 'recorded',
  async execute(rawConfig, ctx) {
    const config = rawConfig as unknown as RenderedAgentConfig;
    const agent = ctx.agent;
    // An empty key (an expression that found nothing) would pour every such run into one shared
    // conversation: refused instead.
    if (config.memory && String(config.memory.key ?? '').trim() === '') {
      throw ctx.failure(
        'memory.key rendered empty: the conversation it names cannot be told apart',
        'agent_memory_key_empty',
      );
    }
    const tools: AgentTool[] = config.tools.length > 0 ? await agent.listTools(config.tools) : [];
    const earlier = config.memory
      ? (await agent.loadMemory(config.memory.key, config.memory.window)).flat()
      : [];
    const turn: AiMessage[] = [userText(config.prompt)];
    const toolCalls: ToolCallRecord[] = [];
    const modelCalls: {
      step: number;
      usage: AgentModelResult['answer']['usage'];
      duration_ms: number;
      finish_reason: string | null;
    }[] = [];
    const usage = { input_tokens: 0, output_tokens: 0 };
    let model = '';

    const ask = async (step: number, withTools: boolean): Promise<AgentModelResult> => {
      const request: AgentModelRequest = {
        step,
        messages: [...earlier, ...turn],
        tools: withTools
          ? tools.map(({ name, description, input_schema }) => ({ name, description, input_schema }))
          : [],
        max_tokens: config.max_tokens,
        ...(config.model ? { model: config.model } : {}),
        ...(config.system ? { system: config.system } : {}),
        ...(config.output_schema ? { output_schema: config.output_schema } : {}),
      };
      const result = await agent.callModel(request);
      const { answer } = result;
      usage.input_tokens += answer.usage.input_tokens;
      usage.output_tokens += answer.usage.output_tokens;
      model = answer.model || model;
      modelCalls.push({
        step,
        usage: answer.usage,
        duration_ms: result.duration_ms,
        finish_reason: answer.finish_reason,
      });
      turn.push(answer.message);
      return result;
    };

    const runTool = async (call: AiToolCall, step: number): Promise<AgentToolResult> => {
      const tool = tools.find((t) => t.name === call.name);
      if (!tool)
        return {
          content: `There is no tool named ${call.name}.`,
          error: `unknown tool ${call.name}`,
          duration_ms: 0,
        };
      if (typeof call.args === 'string') {
        return {
          content: 'The arguments are not valid JSON.',
          error: 'arguments are not valid JSON',
          duration_ms: 0,
        };
      }
      const source = config.tools[tool.source] as AgentToolSource;
      if (!source.requires_approval) return agent.callTool({ step, call, tool, source });
      // The approval gate: a person decides before the call is made; a rejection (or no decision
      // within a day) is the tool's result, so the model can adapt instead of the step failing.
      const decision = await ctx.requestApproval({
        key: call.id,
        title: `The AI agent asks to call ${call.name}`,
        message: `Arguments: ${JSON.stringify(call.args)}`,
        timeoutMs: APPROVAL_TIMEOUT_MS,
        onTimeout: 'reject',
      });
      const approval = {
        approval_id: decision.approval_id,
        decision: decision.decision,
        decided_by: decision.decided_by,
        comment: decision.comment,
        timed_out: decision.timed_out,
      };
      if (decision.decision === 'reject') {
        const why = decision.timed_out
          ? 'nobody approved it in time'
          : `denied by reviewer${decision.comment ? `: ${decision.comment}` : ''}`;
        return {
          content: `The call was not made: ${why}.`,
          error: `not approved: ${why}`,
          duration_ms: 0,
          approval,
        };
      }
      return { ...(await agent.callTool({ step, call, tool, source })), approval };
    };

    let final: AgentModelResult | undefined;
    let step = 0;
    while (step < config.max_steps) {
      step++;
      const result = await ask(step, true);
      const calls = result.answer.tool_calls;
      if (calls.length === 0) {
        final = result;
        break;
      }
      const outcomes = await Promise.all(calls.map((call) => runTool(call, step)));
      const parts: AiPart[] = calls.map((call, i) => {
        const outcome = outcomes[i] as AgentToolResult;
        toolCalls.push({
          id: call.id,
          name: call.name,
          arguments: call.args,
          ...(outcome.error === undefined ? { result: outcome.result } : { error: outcome.error }),
          step,
          duration_ms: outcome.duration_ms,
          ...(outcome.execution_id ? { execution_id: outcome.execution_id } : {}),
          ...(outcome.approval ? { approval: outcome.approval } : {}),
        });
        return {
          type: 'tool_result',
          call_id: call.id,
          content: outcome.content,
          ...(outcome.error === undefined ? {} : { is_error: true }),
        };
      });
      turn.push({ role: 'tool', parts });
    }
    if (!final) {
      throw ctx.failure(
        `The agent was still calling tools after max_steps (${config.max_steps}) model calls`,
        'agent_max_steps',
      );
    }
    if (config.output_schema && final.json_error !== undefined) {
      // One repair round: the model is told what is wrong and answers once more, without tools.
      turn.push(userText(REPAIR_PROMPT.replace('{error}', final.json_error)));
      final = await ask(step + 1, false);
      if (final.json_error !== undefined || final.answer.tool_calls.length > 0) {
        throw ctx.failure(
          `The agent's answer does not satisfy output_schema after one repair round: ${final.json_error ?? 'it called a tool'}`,
          'ai_invalid_output',
        );
      }
    }
    if (config.memory) await agent.saveMemory(config.memory.key, turn);
    return {
      output: {
        text: final.answer.text,
        ...(config.output_schema ? { json: final.json } : {}),
        tool_calls: toolCalls,
        model_calls: modelCalls,
        usage,
        model,
      },
    };
  },
});
