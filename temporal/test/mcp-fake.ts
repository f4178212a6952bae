/**
 * An MCP server for agent tests, built with the official SDK and served statelessly over
 * Streamable HTTP (a new server and transport per request, as the SDK's stateless example does).
 * Its tools: `lookup_order {order_id}` answers an order's status, `add {a, b}` a sum, `repeat
 * {text, times}` a long text, and `fail` always answers `isError`. It counts the calls of each tool and `tools/list` requests, and checks
 * a bearer token when given one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface McpFake {
  /** The endpoint (`…/mcp`). */
  url: string;
  /** Calls per tool name, and the arguments each got. */
  calls: { name: string; arguments: unknown }[];
  callsOf(name: string): number;
  /** `tools/list` requests answered. */
  listRequests(): number;
  /** Holds every tool call this long. */
  delayMs: number;
  close(): Promise<void>;
}

export const ORDERS: Record<string, string> = { A1: 'paid', B2: 'shipped', C3: 'refunded' };

export async function startMcpFake(options: { token?: string } = {}): Promise<McpFake> {
  let lists = 0;
  const fake: McpFake = {
    url: '',
    calls: [],
    callsOf: (name) => fake.calls.filter((c) => c.name === name).length,
    listRequests: () => lists,
    delayMs: 0,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  const hold = () => new Promise((resolve) => setTimeout(resolve, fake.delayMs));

  function mcpServer(): McpServer {
    const server = new McpServer({ name: 'weft-test-tools', version: '1.0.0' });
    server.registerTool(
      'lookup_order',
      {
        description: 'The status of an order by its id',
        inputSchema: { order_id: z.string() },
      },
      async ({ order_id }) => {
        fake.calls.push({ name: 'lookup_order', arguments: { order_id } });
        await hold();
        const status = ORDERS[order_id];
        if (!status) return { content: [{ type: 'text', text: `No order ${order_id}` }], isError: true };
        return {
          content: [{ type: 'text', text: JSON.stringify({ order_id, status }) }],
          structuredContent: { order_id, status },
        };
      },
    );
    server.registerTool(
      'add',
      { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
      async ({ a, b }) => {
        fake.calls.push({ name: 'add', arguments: { a, b } });
        await hold();
        return { content: [{ type: 'text', text: String(a + b) }] };
      },
    );
    server.registerTool(
      'repeat',
      {
        description: 'Answers `text` repeated `times` times',
        inputSchema: { text: z.string(), times: z.number() },
      },
      async ({ text, times }) => {
        fake.calls.push({ name: 'repeat', arguments: { text, times } });
        return { content: [{ type: 'text', text: text.repeat(times) }] };
      },
    );
    server.registerTool('fail', { description: 'Always fails' }, async () => {
      fake.calls.push({ name: 'fail', arguments: {} });
      return { content: [{ type: 'text', text: 'the tool broke' }], isError: true };
    });
    return server;
  }

  const http: Server = createServer(async (req, res) => {
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Unauthorized' }, id: null }),
      );
    }
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = raw ? JSON.parse(raw) : undefined;
    if (body?.method === 'tools/list') lists++;
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return fake;
}
