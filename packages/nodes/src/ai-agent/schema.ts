import { z } from 'zod';
import { Template } from '../common';
import { defineNodeType, MAIN_OUTPUT } from '../define';
import { aiAgentWorkflow } from './workflow';

/** A tool workflow of the organization (`trigger_type: tool`), run as a child execution. */
const WorkflowTool = z.object({
  workflow_id: z.string().min(1).max(64),
  requires_approval: z.boolean().optional(),
});

/** The tools of an outside MCP server (Streamable HTTP), all of them or those named. */
const McpTool = z.object({
  mcp_url: Template.min(1),
  /** An http_bearer, http_header or http_basic credential, sent with every request to the server. */
  credential_id: z.uuid().optional(),
  tool_names: z.array(z.string().min(1).max(128)).max(128).optional(),
  requires_approval: z.boolean().optional(),
});

export const AiAgentConfig = z.object({
  prompt: Template.min(1),
  system: Template.optional(),
  model: z.string().min(1).max(128).optional(),
  tools: z
    .array(z.union([WorkflowTool, McpTool]))
    .max(32)
    .default([]),
  /** Model calls at most; a model still calling tools after the last one fails the step. */
  max_steps: z.number().int().min(1).max(50).default(10),
  /** A JSON Schema object the final answer must satisfy (parsed and validated; one repair round). */
  output_schema: z.record(z.string(), z.unknown()).optional(),
  /** Conversation memory: `key` (an expression, e.g. the chat sender) and the turns kept. */
  memory: z.object({ key: Template.min(1), window: z.number().int().min(1).max(200).default(20) }).optional(),
  max_tokens: z.number().int().min(1).max(32_000).default(1024),
});

const Usage = z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() });

export const aiAgent = defineNodeType({
  type: 'action.ai.agent',
  name: 'AI agent',
  category: 'ai',
  description:
    'Lets the organization AI model call tools (tool workflows, MCP servers) in a loop until it answers.',
  icon: 'bot',
  config: AiAgentConfig,
  output: z.object({
    text: z.string(),
    json: z.unknown().optional(),
    tool_calls: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        arguments: z.unknown(),
        result: z.unknown().optional(),
        error: z.string().optional(),
        approval: z.unknown().optional(),
        step: z.number().int(),
        duration_ms: z.number().int(),
        /** A tool workflow's child execution. */
        execution_id: z.string().optional(),
      }),
    ),
    model_calls: z.array(
      z.object({
        step: z.number().int(),
        usage: Usage,
        duration_ms: z.number().int(),
        finish_reason: z.string().nullable(),
      }),
    ),
    usage: Usage,
    model: z.string(),
  }),
  outputs: MAIN_OUTPUT,
  workflow: aiAgentWorkflow,
  module: 'ai',
});
