/**
 * The provider-neutral conversation the AI nodes keep (ai-agents-mcp.md §2): a message is a role
 * and parts; each provider's wire format is made from it at the edge (wire.ts). Plain data, no zod
 * and no I/O: the agent's workflow code passes these between its activities.
 */

export type AiPart =
  | { type: 'text'; text: string }
  /** `args` as the model sent them; a string when they did not parse as JSON (OpenAI sends a string). */
  | { type: 'tool_call'; id: string; name: string; args: unknown }
  | { type: 'tool_result'; call_id: string; content: string; is_error?: boolean };

/** `tool` messages carry the results of the assistant turn before them, one part per call. */
export interface AiMessage {
  role: 'user' | 'assistant' | 'tool';
  parts: AiPart[];
}

/** A tool the model may call. */
export interface AiToolSpec {
  name: string;
  description: string;
  /** A JSON Schema object. */
  input_schema: Record<string, unknown>;
}

export interface AiUsage {
  input_tokens: number;
  output_tokens: number;
}

/** One model call. */
export interface AiRequest {
  model?: string;
  system?: string;
  messages: AiMessage[];
  tools?: AiToolSpec[];
  max_tokens: number;
  temperature?: number;
  /** Ask for a JSON object (OpenAI's `response_format`; Anthropic has none). */
  json?: boolean;
}

export interface AiToolCall {
  id: string;
  name: string;
  args: unknown;
}

/** What one model call answered. */
export interface AiAnswer {
  /** The assistant turn, as it goes back into the conversation. */
  message: AiMessage;
  /** Its text parts joined. */
  text: string;
  tool_calls: AiToolCall[];
  model: string;
  usage: AiUsage;
  finish_reason: string | null;
}

export const userText = (text: string): AiMessage => ({ role: 'user', parts: [{ type: 'text', text }] });

/** The text parts of a message, joined. */
export function textOf(message: AiMessage): string {
  return message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
