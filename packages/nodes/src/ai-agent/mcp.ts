/**
 * The agent's MCP client: the official SDK's Client over Streamable HTTP, its requests made by the
 * worker's SSRF-guarded HTTP client (a credential's headers marked sensitive). Tool lists are cached
 * per organization, server and credential for a minute, and dropped when a call names a tool the
 * server no longer has, so a changed server is seen on the next run.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { NodeHttpClient } from '../runner';

const MCP_TIMEOUT_MS = 60_000;
export const TOOL_LIST_TTL_MS = 60_000;

export interface McpServerRef {
  url: string;
  headers: Record<string, string>;
}

export interface McpToolInfo {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/**
 * `fetch` over the node HTTP client. The standalone server-to-client stream (a GET) is answered 405
 * here, as a server without one would: the agent only makes request/response calls, and the
 * buffering client would wait for that stream to end.
 */
function fetchOver(http: NodeHttpClient, sensitive: readonly string[]) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const method = init?.method ?? 'GET';
    if (method === 'GET') return new Response(null, { status: 405 });
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const answer = await http.request({
      method,
      url: String(url),
      headers,
      sensitiveHeaders: sensitive,
      ...(typeof init?.body === 'string' ? { body: init.body } : {}),
      timeoutMs: MCP_TIMEOUT_MS,
      maxRedirects: 0,
    });
    const noBody = answer.status === 202 || answer.status === 204;
    return new Response(noBody ? null : (answer.body as Uint8Array<ArrayBuffer>), {
      status: answer.status,
      headers: answer.headers,
    });
  };
}

async function withClient<T>(
  http: NodeHttpClient,
  server: McpServerRef,
  use: (client: Client) => Promise<T>,
) {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    fetch: fetchOver(http, Object.keys(server.headers)),
    requestInit: { headers: server.headers },
  });
  const client = new Client({ name: 'weft-agent', version: '1.0.0' });
  await client.connect(transport, { timeout: MCP_TIMEOUT_MS });
  try {
    return await use(client);
  } finally {
    await client.close().catch(() => {});
  }
}

const toolLists = new Map<string, { at: number; tools: McpToolInfo[] }>();

/** The server's tools, from the cache when listed in the last minute. */
export async function listMcpTools(
  http: NodeHttpClient,
  server: McpServerRef,
  cacheKey: string,
  now = Date.now(),
): Promise<McpToolInfo[]> {
  const cached = toolLists.get(cacheKey);
  if (cached && now - cached.at < TOOL_LIST_TTL_MS) return cached.tools;
  const tools = await withClient(http, server, async (client) => {
    const all: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: MCP_TIMEOUT_MS });
      for (const tool of page.tools) {
        all.push({
          name: tool.name,
          description: tool.description ?? '',
          input_schema: tool.inputSchema as Record<string, unknown>,
        });
      }
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  });
  toolLists.set(cacheKey, { at: now, tools });
  return tools;
}

/** Drops a server's cached tool list (a call named a tool it no longer has). */
export function forgetMcpTools(cacheKey: string) {
  toolLists.delete(cacheKey);
}

export interface McpCallOutcome {
  text: string;
  structured?: unknown;
  isError: boolean;
}

/** Calls one tool; the content's text parts joined, its structured content, and whether it is an error. */
export async function callMcpTool(
  http: NodeHttpClient,
  server: McpServerRef,
  name: string,
  args: Record<string, unknown>,
): Promise<McpCallOutcome> {
  return withClient(http, server, async (client) => {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: MCP_TIMEOUT_MS });
    const content = Array.isArray(result.content)
      ? (result.content as { type: string; text?: string }[])
      : [];
    const text = content
      .map((part) => (part.type === 'text' ? (part.text ?? '') : `[${part.type}]`))
      .join('\n');
    return {
      text,
      ...(result.structuredContent === undefined ? {} : { structured: result.structuredContent }),
      isError: result.isError === true,
    };
  });
}
