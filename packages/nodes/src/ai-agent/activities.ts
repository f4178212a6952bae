/**
 * The agent's activities, Temporal-free (the worker wraps them, temporal/activities/agent.ts): list
 * the tools of its sources, call the model once, call one tool. Failures of the model call are
 * NodeRunErrors (retried or final as for action.ai.prompt); a tool's failure is an answer to the
 * model, never a thrown error.
 */
import { Ajv } from 'ajv';
import { credentialHeaders, HTTP_AUTH_CREDENTIAL_TYPES } from '../http-request/credential-headers';
import { type NodeRunContext, NodeRunError } from '../runner';
import { callModel, openAiModule, parseJsonAnswer } from '../shared/ai/client';
import type { AiToolSpec } from '../shared/ai/messages';
import type {
  AgentModelRequest,
  AgentModelResult,
  AgentTool,
  AgentToolRequest,
  AgentToolResult,
  AgentToolSource,
} from './contract';
import { callMcpTool, forgetMcpTools, listMcpTools, type McpServerRef } from './mcp';

type McpSource = Extract<AgentToolSource, { mcp_url: string }>;

/** How a tool workflow presents itself (its trigger's name, description and input schema). */
export type DescribeToolWorkflow = (workflowId: string) => Promise<AiToolSpec>;

const ajv = new Ajv({ allErrors: false, strict: false });

/** Why `value` does not satisfy `schema`, or undefined when it does. */
export function schemaError(schema: Record<string, unknown>, value: unknown): string | undefined {
  let validate: ReturnType<typeof ajv.compile>;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new NodeRunError(
      'invalid_config',
      `The JSON Schema is not valid: ${(error as Error).message}`,
      false,
    );
  }
  if (validate(value)) return undefined;
  const first = validate.errors?.[0];
  return first ? `${first.instancePath || '(the value)'} ${first.message}` : 'it does not match the schema';
}

async function mcpServer(ctx: NodeRunContext, source: McpSource): Promise<McpServerRef> {
  if (!source.credential_id) return { url: source.mcp_url, headers: {} };
  const credential = await ctx.openCredential(source.credential_id, HTTP_AUTH_CREDENTIAL_TYPES);
  return { url: source.mcp_url, headers: credentialHeaders(credential) };
}

const cacheKeyOf = (ctx: NodeRunContext, source: McpSource) =>
  `${ctx.organizationId}|${source.mcp_url}|${source.credential_id ?? ''}`;

function mcpFailure(source: McpSource, error: unknown): NodeRunError {
  if (error instanceof NodeRunError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // A refused address, or the server refusing us (a 4xx: a bad credential, a wrong URL), stays
  // so on a retry; anything else (down, timing out, a 5xx) may pass.
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number' && code >= 400 && code < 500 && code !== 408 && code !== 429) {
    const kind = code === 401 || code === 403 ? 'mcp_auth_failed' : 'mcp_request_refused';
    return new NodeRunError(
      kind,
      `The MCP server ${source.mcp_url} refused the request (HTTP ${code}): ${message}`,
      false,
    );
  }
  const final = code === 'ssrf_blocked' || code === 'invalid_url';
  return new NodeRunError('mcp_unreachable', `The MCP server ${source.mcp_url} failed: ${message}`, !final);
}

/** Every tool of the node's sources, as the model sees them; a name seen twice keeps its first source. */
export async function listAgentTools(
  ctx: NodeRunContext,
  sources: AgentToolSource[],
  describeWorkflow: DescribeToolWorkflow,
): Promise<AgentTool[]> {
  const tools: AgentTool[] = [];
  const seen = new Set<string>();
  for (const [index, source] of sources.entries()) {
    let specs: AiToolSpec[];
    if ('workflow_id' in source) specs = [await describeWorkflow(source.workflow_id)];
    else {
      try {
        const listed = await listMcpTools(ctx.http, await mcpServer(ctx, source), cacheKeyOf(ctx, source));
        specs = source.tool_names ? listed.filter((t) => source.tool_names?.includes(t.name)) : listed;
      } catch (error) {
        throw mcpFailure(source, error);
      }
    }
    for (const spec of specs) {
      if (seen.has(spec.name)) continue;
      seen.add(spec.name);
      tools.push({ ...spec, source: index });
    }
  }
  return tools;
}

/** One model call; a final answer is checked against output_schema when there is one. */
export async function callAgentModel(
  ctx: NodeRunContext,
  request: AgentModelRequest,
): Promise<AgentModelResult> {
  const module = await openAiModule(ctx, 'action.ai.agent');
  const started = performance.now();
  const answer = await callModel(ctx, module, {
    ...(request.model ? { model: request.model } : {}),
    ...(request.system ? { system: request.system } : {}),
    messages: request.messages,
    tools: request.tools,
    max_tokens: request.max_tokens,
  });
  const duration_ms = Math.round(performance.now() - started);
  if (!request.output_schema || answer.tool_calls.length > 0) return { answer, duration_ms };
  let json: unknown;
  try {
    json = parseJsonAnswer(answer.text);
  } catch {
    return { answer, duration_ms, json_error: 'it is not JSON' };
  }
  const error = schemaError(request.output_schema, json);
  return error === undefined ? { answer, duration_ms, json } : { answer, duration_ms, json_error: error };
}

/** The model-facing text of a tool's result. */
const contentOf = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/**
 * A tool's answer is kept to 64 KiB (for the model and in the output): the loop's history carries
 * it, and Temporal refuses payloads past 2 MB. A longer result is cut, and says so.
 */
export const TOOL_RESULT_LIMIT = 64 * 1024;

function bounded(outcome: AgentToolResult): AgentToolResult {
  const resultSize = outcome.result === undefined ? 0 : contentOf(outcome.result).length;
  if (outcome.content.length <= TOOL_RESULT_LIMIT && resultSize <= TOOL_RESULT_LIMIT) return outcome;
  const note = `\n[cut: the tool answered ${outcome.content.length} characters; the first ${TOOL_RESULT_LIMIT} are kept]`;
  const content = `${outcome.content.slice(0, TOOL_RESULT_LIMIT)}${note}`;
  return { ...outcome, content, ...(outcome.error === undefined ? { result: content } : { error: content }) };
}

/** One MCP tool call, its answer kept to TOOL_RESULT_LIMIT. */
export async function callAgentTool(
  ctx: NodeRunContext,
  request: AgentToolRequest,
): Promise<AgentToolResult> {
  return bounded(await callMcpToolOnce(ctx, request));
}

/** One MCP tool call: invalid arguments and the server's errors go back to the model as the result. */
async function callMcpToolOnce(ctx: NodeRunContext, request: AgentToolRequest): Promise<AgentToolResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const { source, call, tool } = request;
  if (!('mcp_url' in source)) throw new NodeRunError('invalid_config', 'Not an MCP tool source', false);
  const invalid = schemaError(tool.input_schema, call.args);
  if (invalid !== undefined) {
    return {
      content: `Invalid arguments: ${invalid}`,
      error: `invalid arguments: ${invalid}`,
      duration_ms: took(),
    };
  }
  try {
    const outcome = await callMcpTool(
      ctx.http,
      await mcpServer(ctx, source),
      call.name,
      (call.args ?? {}) as Record<string, unknown>,
    );
    if (outcome.isError) return { content: outcome.text, error: outcome.text, duration_ms: took() };
    let result: unknown = outcome.structured;
    if (result === undefined) {
      try {
        result = JSON.parse(outcome.text);
      } catch {
        result = outcome.text;
      }
    }
    return {
      content: outcome.structured === undefined ? outcome.text : contentOf(result),
      result,
      duration_ms: took(),
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/tool .*not found|unknown tool/i.test(message)) forgetMcpTools(cacheKeyOf(ctx, source));
    return { content: `The tool call failed: ${message}`, error: message.slice(0, 500), duration_ms: took() };
  }
}
