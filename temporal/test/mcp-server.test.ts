import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { createHttpServer } from '@weft/api';
import { createApiKey } from '@weft/domain';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The MCP server at /api/mcp (DESIGN §14), driven by the official SDK's client over real HTTP, as
// Claude Desktop or an agent framework would, plus the raw requests a client without the SDK sends.
const CALL_TIMEOUT_S = 4;
let h: EngineHarness;
let server: ReturnType<typeof createHttpServer>;
let url: URL;
let org: { organizationId: string; key: string };
let other: { organizationId: string; key: string };
const clients: Client[] = [];

beforeAll(async () => {
  h = await createEngineHarness({ mcpCallTimeout: CALL_TIMEOUT_S });
  server = createHttpServer(h.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/mcp`);
  org = await h.createOrg('Tools');
  other = await h.createOrg('Other');
  const tool = (name: string, nodes: unknown[], inputSchema: unknown = { type: 'object' }) => ({
    name: `Tool ${name}`,
    trigger_type: 'tool',
    trigger_config: { name, description: `The ${name} tool`, input_schema: inputSchema },
    status: 'active',
    nodes,
    edges: [],
  });
  const greetSchema = {
    type: 'object',
    properties: { name: { type: 'string' } },
    required: ['name'],
    additionalProperties: false,
  };
  const greet = [
    {
      id: 'greeting',
      type: 'action.transform',
      name: 'Greet',
      config: { assignments: [{ key: 'text', value: 'Hello {{ trigger.name }}' }] },
    },
  ];
  // Refused at once by the SSRF guard (a private address, no allowlist): fails without retries.
  const failing = [
    {
      id: 'stock',
      type: 'action.http_request',
      name: 'Ask the warehouse',
      on_failure: 'abort',
      config: { method: 'GET', url: 'http://10.0.0.1/stock' },
    },
  ];
  // Waits for an event the test publishes only after the call has timed out.
  const slow = [
    {
      id: 'wait',
      type: 'action.wait_for_event',
      name: 'Wait',
      config: { event: 'stock.counted', timeout: '10m' },
    },
  ];
  for (const [key, body] of [
    [org.key, tool('greet', greet, greetSchema)],
    [org.key, tool('failing', failing)],
    [org.key, tool('slow', slow)],
    [other.key, tool('other_org_tool', greet, greetSchema)],
  ] as const) {
    const res = await h.request('POST', '/api/v1/workflows', { key, body });
    expect(res.status, await res.clone().text()).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

/** Headers the client sent, request by request (to see the negotiated protocol version). */
const sent: { method: string; version: string | null }[] = [];

/** An SDK client connected with `key`; `version` makes it offer an older protocol revision. */
async function connect(key: string, version?: string): Promise<Client> {
  const client = new Client({ name: 'weft-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    fetch: async (input, init) => {
      let body = init?.body;
      if (typeof body === 'string') {
        const message = JSON.parse(body);
        if (version && message.method === 'initialize') message.params.protocolVersion = version;
        body = JSON.stringify(message);
        sent.push({
          method: message.method,
          version: new Headers(init?.headers).get('mcp-protocol-version'),
        });
      }
      return fetch(input, { ...init, body });
    },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A JSON-RPC request as a client without the SDK posts it (no initialize first). */
async function post(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${org.key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json().catch(() => null)) as any };
}

describe('MCP server', () => {
  it('serves a 2025-06-18 client: tools/list shows the tool workflows, tools/call runs one', async () => {
    const client = await connect(org.key, '2025-06-18');
    expect(client.getServerVersion()?.name).toBe('weft');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['failing', 'greet', 'slow']);
    expect(tools.find((t) => t.name === 'greet')).toMatchObject({
      description: 'The greet tool',
      inputSchema: { type: 'object', required: ['name'] },
    });
    // The negotiated revision rides on every later request.
    expect(sent.filter((s) => s.method === 'tools/list').at(-1)?.version).toBe('2025-06-18');

    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(result).toMatchObject({
      isError: false,
      structuredContent: { text: 'Hello Ada' },
      content: [{ type: 'text', text: JSON.stringify({ text: 'Hello Ada' }) }],
    });
    // Every answer names its execution (_meta), a tool run of the tool workflow.
    const id = (result._meta as any)['weft/execution_id'];
    expect(await h.waitForExecution(org.key, id)).toMatchObject({
      trigger: 'tool',
      status: 'success',
      workflow_name: 'Tool greet',
      trigger_payload: { name: 'Ada' },
    });
  });

  it('answers bad arguments with isError (the model can correct them) and runs nothing', async () => {
    const client = await connect(org.key);
    const before = ((await (await h.request('GET', '/api/v1/executions', { key: org.key })).json()) as any)
      .data;
    const result = await client.callTool({ name: 'greet', arguments: { name: 7 } });
    expect(result.isError).toBe(true);
    expect((result.content as any)[0].text).toMatch(/input schema: name must be string/);
    const after = ((await (await h.request('GET', '/api/v1/executions', { key: org.key })).json()) as any)
      .data;
    expect(after.length).toBe(before.length);
  });

  it('answers a request without initialize (stateless, as 2026 clients send them)', async () => {
    const list = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(list.status).toBe(200);
    expect(list.headers.get('mcp-session-id')).toBeNull();
    expect(list.body.result.tools.map((t: any) => t.name)).toContain('greet');
    const call = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'greet', arguments: { name: 'Lin' } } },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    expect(call.body.result).toMatchObject({ isError: false, structuredContent: { text: 'Hello Lin' } });
  });

  it("keeps another organization's tools invisible and uncallable", async () => {
    const client = await connect(org.key);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('other_org_tool');
    const refused = await client.callTool({ name: 'other_org_tool', arguments: { name: 'x' } }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect(refused).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Unknown tool: other_org_tool/),
    });
    // The other organization sees its own tool only.
    const theirs = await connect(other.key);
    expect((await theirs.listTools()).tools.map((t) => t.name)).toEqual(['other_org_tool']);
  });

  it('answers a failing tool with isError naming the execution and the failure', async () => {
    const client = await connect(org.key);
    const result = await client.callTool({ name: 'failing', arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as any)[0].text as string;
    expect(text).toMatch(/The tool failed \(execution .*\): .*(private|not allowed|blocked)/i);
    const id = (result.structuredContent as any).execution_id as string;
    expect(text).toContain(id);
    const execution = await h.waitForExecution(org.key, id);
    expect(execution).toMatchObject({ status: 'failed', trigger: 'tool' });
  });

  it('stops waiting after MCP_CALL_TIMEOUT with an error naming the execution, which runs on', async () => {
    const client = await connect(org.key);
    const started = Date.now();
    const result = await client.callTool({ name: 'slow', arguments: {} });
    expect(Date.now() - started).toBeGreaterThanOrEqual(CALL_TIMEOUT_S * 1000);
    expect(result.isError).toBe(true);
    const id = (result.structuredContent as any).execution_id as string;
    expect((result.content as any)[0].text).toContain(`execution ${id} goes on`);
    // Still running: the event it waits for lets it finish.
    const waiting = await h.waitForExecution(org.key, id, (e) => e.status === 'waiting');
    expect(waiting.trigger).toBe('tool');
    await h.request('POST', '/api/v1/events', {
      key: org.key,
      body: { event: 'stock.counted', payload: {} },
    });
    expect((await h.waitForExecution(org.key, id)).status).toBe('success');
  });

  it('refuses a wrong or missing key with 401 and WWW-Authenticate, a key without workflows.execute with 403', async () => {
    // The SDK client's own error carries the HTTP status.
    await expect(connect('weft_wrong_key_0000000000000000')).rejects.toMatchObject({
      code: 401,
      message: expect.stringMatching(/invalid or has been revoked/),
    });
    const wrong = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { authorization: 'Bearer nope' },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const missing = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);

    const readOnly = await createApiKey({
      ctx: { db: h.db.app.db, organizationId: org.organizationId, actor: {} },
      input: { name: 'read only', permissions: ['workflows.view'] },
    });
    const forbidden = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { authorization: `Bearer ${readOnly.key}` },
    );
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.message).toMatch(/workflows\.execute/);
  });

  it("refuses another site's Origin (403), and GET and DELETE (405: no stream, no session)", async () => {
    const foreign = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    const own = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { origin: 'http://localhost:3000' },
    );
    expect(own.status).toBe(200);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(url, { method, headers: { authorization: `Bearer ${org.key}` } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });
});
