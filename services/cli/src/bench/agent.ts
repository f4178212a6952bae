import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { fmt, startBenchStack } from './stack';
import { createTerminalWatcher } from './terminal-watcher';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/**
 * `weft bench agent`: what the durable agent loop costs per tool call. Local stand-ins answer at
 * once: an OpenAI-compatible model that asks for `tools` sequential tool calls (one per turn) and
 * then answers, and an MCP server (the official SDK, Streamable HTTP) with one tool. Executions run
 * one at a time with `tools` tool calls and with none; the time the stand-ins spent is subtracted,
 * and the difference, divided by the tool calls, is the loop's own cost per call (one model-call
 * activity and one tool-call activity with their history events, MCP client connect included).
 */
export async function benchAgentCommand(options: { runs: number; tools: number }) {
  let fakeMs = 0;
  const model = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const started = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: { role: string }[] };
      const done = body.messages.filter((m) => m.role === 'tool').length;
      const message =
        done < Number(/calls=(\d+)/.exec(JSON.stringify(body.messages))?.[1] ?? 0)
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: `call_${done}`,
                  type: 'function',
                  function: { name: 'add', arguments: JSON.stringify({ a: done, b: 1 }) },
                },
              ],
            }
          : { role: 'assistant', content: 'done' };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          model: 'bench',
          choices: [{ message, finish_reason: message.content ? 'stop' : 'tool_calls' }],
          usage: { prompt_tokens: 10, completion_tokens: 5 },
        }),
      );
      fakeMs += performance.now() - started;
    });
  });
  const mcp = createServer(async (req, res) => {
    const started = performance.now();
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const server = new McpServer({ name: 'bench', version: '1.0.0' });
    server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      fakeMs += performance.now() - started;
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, JSON.parse(raw));
  });
  await Promise.all([model, mcp].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
  const url = (s: typeof model) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  const stack = await startBenchStack({ extraEnv: { SSRF_ALLOWLIST: '127.0.0.1/32' } });
  const { call, admin } = stack;
  const watcher = createTerminalWatcher(admin);
  try {
    await call('PUT', '/modules/ai', {
      provider: 'openai',
      base_url: `${url(model)}/v1`,
      api_key: 'sk-bench',
      default_model: 'bench',
    });
    const workflow = await call('POST', '/workflows', {
      name: 'agent bench',
      trigger_type: 'manual',
      status: 'active',
      nodes: [
        {
          id: 'agent',
          type: 'action.ai.agent',
          config: {
            prompt: 'calls={{trigger.calls}}',
            tools: [{ mcp_url: `${url(mcp)}/mcp` }],
            max_steps: options.tools + 1,
          },
        },
      ],
      edges: [],
    });
    const timeRun = async (calls: number) => {
      fakeMs = 0;
      const started = performance.now();
      const accepted = await call('POST', `/workflows/${workflow.id}/execute`, { input: { calls } });
      const status = await watcher.terminal(accepted.execution_id);
      if (status !== 'success') throw new Error(`execution ${accepted.execution_id} ended ${status}`);
      return { ms: performance.now() - started, fakeMs };
    };
    for (let i = 0; i < 3; i++) await timeRun(2); // warm-up: bundles, connections, tool list cache
    const none: number[] = [];
    const some: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      const a = await timeRun(0);
      none.push(a.ms - a.fakeMs);
      const b = await timeRun(options.tools);
      some.push(b.ms - b.fakeMs);
    }
    const perCall = (median(some) - median(none)) / options.tools;
    process.stdout.write(
      `agent loop, ${options.runs} runs each, one at a time (stand-ins' own time subtracted):\n` +
        `  no tool call:        ${fmt(median(none))} ms per execution (median)\n` +
        `  ${options.tools} tool calls:      ${fmt(median(some))} ms per execution (median)\n` +
        `  overhead per tool call: ${fmt(perCall)} ms (a model-call and a tool-call activity)\n`,
    );
  } finally {
    await stack.stop();
    model.close();
    mcp.close();
  }
}
