/**
 * What the agent's workflow code (workflow.ts) asks of the interpreter, and what its activities
 * (activities.ts) answer: every model call, tool listing and tool call is one recorded activity.
 * Plain types only: this is read by workflow code.
 */
import type { AiAnswer, AiMessage, AiToolCall, AiToolSpec } from '../shared/ai/messages';

/** A tool source as configured (the node's `tools` entries, rendered). */
export type AgentToolSource =
  | { workflow_id: string; requires_approval?: boolean }
  | { mcp_url: string; credential_id?: string; tool_names?: string[]; requires_approval?: boolean };

/** A tool as the model sees it, and where it comes from (an index into the node's `tools`). */
export interface AgentTool extends AiToolSpec {
  source: number;
}

export interface AgentModelRequest {
  step: number;
  model?: string;
  system?: string;
  messages: AiMessage[];
  tools: AiToolSpec[];
  max_tokens: number;
  /** When the answer is final (no tool calls): parse it as JSON and validate it against this schema. */
  output_schema?: Record<string, unknown>;
}

export interface AgentModelResult {
  answer: AiAnswer;
  duration_ms: number;
  /** The final answer parsed and valid (output_schema given). */
  json?: unknown;
  /** Why the final answer is not JSON or does not satisfy output_schema. */
  json_error?: string;
}

export interface AgentToolRequest {
  step: number;
  call: AiToolCall;
  tool: AgentTool;
  source: AgentToolSource;
}

/** One tool call's outcome: `content` goes back to the model; `result` or `error` into the output. */
export interface AgentToolResult {
  content: string;
  result?: unknown;
  error?: string;
  duration_ms: number;
  /** A tool workflow's child execution. */
  execution_id?: string;
  /** How the call's approval was decided (a tool with `requires_approval`). */
  approval?: {
    approval_id: string;
    decision: string;
    decided_by: string;
    comment: string | null;
    timed_out: boolean;
  };
}

/** The agent's side of the interpreter's node context (WorkflowNodeContext.agent). */
export interface AgentRuntime {
  listTools(sources: AgentToolSource[]): Promise<AgentTool[]>;
  callModel(request: AgentModelRequest): Promise<AgentModelResult>;
  /** A tool call; a failure of the call itself resolves as `error` (the model is told, the step goes on). */
  callTool(request: AgentToolRequest): Promise<AgentToolResult>;
  /** The last `window` turns of the conversation under `key` (each turn whole: tool pairs never split). */
  loadMemory(key: string, window: number): Promise<AiMessage[][]>;
  /** Appends one turn to the conversation under `key`. */
  saveMemory(key: string, turn: AiMessage[]): Promise<void>;
}
