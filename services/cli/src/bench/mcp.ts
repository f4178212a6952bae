import os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { closedLoop } from './load';
import { fmt, startBenchStack } from './stack';

/**
 * `weft bench mcp`: MCP tools/call latency for a one-node tool workflow, as an outside client sees
 * it: the official SDK client over HTTP to `/api/mcp` (authentication, argument validation, the
 * execution recorded and started on Temporal, the worker's run, the end seen in PostgreSQL, the
 * result read back). Each concurrency runs `calls` calls after a warm-up.
 */
export async function benchMcpCommand(options: { calls: number; concurrency: number[]; json: boolean }) {
  const say = (line: string) => {
    if (!options.json) process.stdout.write(`${line}\n`);
  };
  const stack = await startBenchStack();
  const clients: Client[] = [];
  try {
    await stack.call('POST', '/workflows', {
      name: 'bench tool',
      trigger_type: 'tool',
      trigger_config: {
        name: 'greet',
        description: 'Greets someone',
        input_schema: {
          type: 'object',
          properties: { name: { type: 'string' } },
          required: ['name'],
        },
      },
      status: 'active',
      nodes: [
        {
          id: 'greeting',
          type: 'action.transform',
          config: { assignments: [{ key: 'text', value: 'Hello {{ trigger.name }}' }] },
        },
      ],
    });
    const connect = async () => {
      const client = new Client({ name: 'weft-bench', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${stack.base}/api/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${stack.key}` } },
        }),
      );
      clients.push(client);
      return client;
    };
    const results = [];
    for (const concurrency of options.concurrency) {
      // One client (one MCP connection) per caller in flight, as separate assistants would be.
      const pool = await Promise.all(Array.from({ length: concurrency }, connect));
      const callOnce = async (i: number) => {
        const client = pool[i % concurrency] as Client;
        const result = await client.callTool({ name: 'greet', arguments: { name: `n${i}` } });
        if (result.isError) throw new Error(`tools/call failed: ${JSON.stringify(result.content)}`);
      };
      for (let i = 0; i < 20; i++) await callOnce(i); // warm-up
      const before = await stack.probe.begin();
      const run = await closedLoop(options.calls, concurrency, callOnce, {
        label: `tools/call c${concurrency}`,
      });
      const cost = await stack.probe.end(before, options.calls);
      results.push({ concurrency, ...run, cost });
    }
    const load = os.loadavg()[0] ?? 0;
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({ calls: options.calls, cpus: os.cpus().length, loadavg_1m: load, results })}\n`,
      );
      return;
    }
    say(`\nMCP tools/call of a one-node tool workflow (SDK client → /api/mcp → Temporal → result)`);
    for (const r of results) {
      say(
        `  concurrency ${r.concurrency}: ${fmt(r.perSecond)} calls/s, p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms`,
      );
    }
    say(`  machine: ${os.cpus().length} cores, load average (1 min) ${fmt(load, 2)} at the end`);
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await stack.stop();
  }
}
