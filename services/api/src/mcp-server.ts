import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import {
  AppError,
  callToolWorkflow,
  type ExecutionEngine,
  isUnknownTool,
  listToolWorkflows,
  type ServiceContext,
  type ToolCallOutcome,
} from '@weft/domain';
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env';
import type { handleError } from './error-handler';
import { limitBodySize } from './middleware/body-size';
import { requirePermission } from './middleware/require-permission';

export const MCP_PATH = '/api/mcp';

export interface McpServerDeps {
  /** APP_URL: the one browser origin allowed to call (DNS rebinding, MCP's security rules). */
  siteUrl: string;
  maxBodyBytes: number;
  /** MCP_CALL_TIMEOUT in ms: how long tools/call waits for its tool workflow. */
  callTimeoutMs: number;
  /** Sets the engine and the other request variables (as for /api/v1). */
  provideContext: MiddlewareHandler<AppEnv>;
  /** The API key middleware of /api/v1 (rate limits, tenancy context). */
  authenticate: MiddlewareHandler<AppEnv>;
  onError: (error: unknown, c: Parameters<typeof handleError>[1]) => Response;
}

/**
 * `{site_url}/api/mcp`: the Model Context Protocol over Streamable HTTP (DESIGN §14), stateless
 * (one server and transport per request, no Mcp-Session-Id, JSON answers), so any replica answers
 * any request. An API key with `workflows.execute` is the credential; `tools/list` and `tools/call`
 * are the organization's active tool workflows. GET (a server-to-client stream) and DELETE (ending a
 * session) are 405: there is no stream and no session.
 */
export function registerMcpServer(app: Hono, deps: McpServerDeps) {
  const mcp = new Hono<AppEnv>();
  mcp.onError((error, c) => {
    const response = deps.onError(error, c);
    // RFC 6750 / MCP authorization: a 401 names the scheme the client should use.
    if (response.status === 401) response.headers.set('WWW-Authenticate', 'Bearer realm="weft"');
    return response;
  });
  const allowedOrigin = new URL(deps.siteUrl).origin;
  mcp.use('*', async (c, next) => {
    // A browser page of another site must not drive a user's local or intranet server.
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== allowedOrigin) {
      throw new AppError('forbidden', `Requests from the origin ${origin} are not allowed.`);
    }
    if (c.req.method !== 'POST') {
      throw new AppError(
        'method_not_allowed',
        'This MCP server is stateless: POST each JSON-RPC message; there is no stream to GET and no session to DELETE.',
        {},
        405,
        { Allow: 'POST' },
      );
    }
    // An API key only: a browser session cookie is no credential here.
    if (!c.req.header('authorization') && !c.req.header('x-api-key')) {
      throw new AppError('unauthenticated', 'An API key is required: Authorization: Bearer <key>.');
    }
    await next();
  });
  mcp.use('*', limitBodySize(deps.maxBodyBytes));
  mcp.use('*', deps.provideContext);
  mcp.use('*', deps.authenticate);
  mcp.use('*', requirePermission('workflows.execute'));
  mcp.post('/', async (c) => {
    const server = createToolServer(c.get('ctx'), c.get('engine'), deps.callTimeoutMs);
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
  app.route(MCP_PATH, mcp);
}

/** One request's MCP server: the caller's tool workflows as tools. */
function createToolServer(ctx: ServiceContext, engine: ExecutionEngine, callTimeoutMs: number): Server {
  const server = new Server(
    { name: 'weft', version: '1.0.0' },
    // Stateless: no stream to announce list changes on.
    { capabilities: { tools: { listChanged: false } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await listToolWorkflows({ ctx, input: {} })).map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.input_schema as { type: 'object' },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    try {
      const outcome = await callToolWorkflow({
        ctx,
        input: {
          tool: { name: request.params.name },
          arguments: request.params.arguments ?? {},
          timeoutMs: callTimeoutMs,
        },
        engine,
      });
      return callResult(outcome, callTimeoutMs);
    } catch (error) {
      // An unknown tool (another organization's too) is a protocol error; bad arguments are a
      // result with isError, so the model can correct them (MCP 2025-11-25, SEP-1303).
      if (isUnknownTool(error)) {
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      }
      if (error instanceof AppError && error.code === 'validation_error') {
        return { content: [{ type: 'text', text: error.message }], isError: true };
      }
      throw error;
    }
  });
  return server;
}

/** Where every tools/call answer names its execution (MCP's `_meta`, with Weft's prefix). */
export const EXECUTION_ID_META = 'weft/execution_id';

/** The tools/call answer for a run: its result, its failure, or that it is still running. */
function callResult(outcome: ToolCallOutcome, callTimeoutMs: number): CallToolResult {
  return { ...resultOf(outcome, callTimeoutMs), _meta: { [EXECUTION_ID_META]: outcome.execution_id } };
}

function resultOf(outcome: ToolCallOutcome, callTimeoutMs: number): CallToolResult {
  const id = outcome.execution_id;
  if (!outcome.finished) {
    return {
      content: [
        {
          type: 'text',
          text: `The tool is still running after ${callTimeoutMs / 1000} s (MCP_CALL_TIMEOUT); its execution ${id} goes on, and its result will be in the execution's record.`,
        },
      ],
      structuredContent: { execution_id: id, status: outcome.status },
      isError: true,
    };
  }
  if (outcome.status === 'failed' || outcome.status === 'cancelled') {
    const reason = outcome.error?.message ?? `the execution ended ${outcome.status}`;
    return {
      content: [{ type: 'text', text: `The tool failed (execution ${id}): ${reason}` }],
      structuredContent: { execution_id: id, status: outcome.status, error: outcome.error },
      isError: true,
    };
  }
  // 2025-06-18 wants an object: a list or a plain value is wrapped as {result}. The text block
  // repeats it for clients that read only text.
  const result = outcome.result;
  const structured =
    typeof result === 'object' && result !== null && !Array.isArray(result)
      ? (result as Record<string, unknown>)
      : { result };
  return {
    content: [{ type: 'text', text: JSON.stringify(result) }],
    structuredContent: structured,
    isError: false,
  };
}
