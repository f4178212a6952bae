import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, createConnection } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection, ScheduleNotFoundError } from '@temporalio/client';
import { createEncryptionCodec } from '@weft/temporal/codec';
import { triggerScheduleId } from '@weft/temporal/schedules';
import { freePort, registerCanary, registerSecretsIn } from '@weft/testing';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { keepStackLogs } from './weft-process';

/**
 * The whole product as a user runs it: `weft up` on free ports (embedded PostgreSQL, the Temporal
 * dev server, API and worker as child processes), driven only through the CLI, the HTTP API, the
 * Temporal client and local stand-ins for outside parties. One stack start serves every check (a
 * start costs ~15 s); the tests run in file order and share the organization the CLI creates.
 */

const run = promisify(execFile);
// The CLI's bundle, as `./weft` runs it (services/cli/test/service-bundles-setup.ts built it).
const CLI = inject('cliBundle');

let dataDir: string;
let env: NodeJS.ProcessEnv;
let appKey: string;
let ports: { web: number; pg: number; temporal: number; ui: number };
let base: string;
let running: ChildProcess | undefined;
let firstOutput: () => string;
let connection: Connection | undefined;
let temporal: Client;
let org: { id: string };
let apiKey: string;

/** The outside world: a JSON API that polling workflows read, and a receiver for outbound webhooks. */
let outside: Server;
let outsideUrl: string;
let pollAnswer: unknown = [];
let pollRequests = 0;
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];

/** Stand-ins of the module providers: the cloud chat API, an OpenAI-compatible API and SMTP. */
const CHAT_NUMBER_ID = '106540352242922';
const CHAT_APP_SECRET = 'up-app-secret';
const API_TOKEN = 'sk_live_up_token_0123456789';
const chatSent: Json[] = [];
const aiPrompts: Json[] = [];
const mails: string[] = [];
let smtp: SMTPServer;
let smtpPort: number;

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts `weft up` and resolves once it printed its URLs. */
async function startUp(): Promise<{ child: ChildProcess; output: () => string }> {
  // A process group of its own, as a shell gives a command: a Ctrl-C can be sent to it whole.
  const child = spawn(process.execPath, [CLI, 'up'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`weft up did not become ready:\n${output}`)), 150_000);
    const check = setInterval(() => {
      if (output.includes('Weft is running.')) {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`weft up exited with ${code}:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  return exited;
}

/** Runs `weft <args> --json` against the running stack and parses its one JSON object. */
async function cli<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [CLI, ...args], { env });
  const answer = JSON.parse(stdout) as T;
  registerSecretsIn(answer, 'cli');
  return answer;
}

/** The CLI with `input` on its standard input (passwords never go on the command line). */
function cliWithInput<T = Record<string, unknown>>(input: string, ...args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [CLI, ...args], { env }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else {
        // A password read on standard input was accepted: it must never show up in a log.
        registerCanary('cli:password', input.trim());
        resolve(JSON.parse(stdout) as T);
      }
    });
    child.stdin?.end(input);
  });
}

/** API answers, checked field by field with expect. */
type Json = any;

async function api(method: string, route: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${base}/api/v1${route}`, {
    method,
    headers: {
      'X-Api-Key': apiKey,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  // What the stack answered and accepted goes on the canary list its logs are scanned for.
  if (res.ok) registerSecretsIn({ request: body, answer: json }, route.split('/')[1] ?? 'api');
  return { status: res.status, json };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Probes until `ok` holds; the error shows the last value seen. */
async function eventually<T>(
  what: string,
  probe: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`${what}: not met after ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await sleep(250);
  }
}

async function createWorkflow(body: Record<string, unknown>): Promise<Json> {
  const { status, json } = await api('POST', '/workflows', { status: 'active', ...body });
  expect(status, JSON.stringify(json)).toBe(201);
  return json;
}

/** A one-node workflow whose step output shows what the trigger carried. */
const echo = (value: string) => [
  { id: 'echo', type: 'action.transform', config: { assignments: [{ key: 'seen', value }] } },
];

async function executionsOf(workflowId: string): Promise<Json[]> {
  const { status, json } = await api('GET', `/executions?workflow_id=${workflowId}&per_page=100`);
  expect(status).toBe(200);
  return json.data;
}

const TERMINAL = ['success', 'partial', 'failed', 'cancelled'];

/** The execution (with its steps) once it reached a terminal status. */
const settled = (executionId: string): Promise<Json> =>
  eventually(
    `execution ${executionId} settles`,
    async () => (await api('GET', `/executions/${executionId}`)).json,
    (e) => TERMINAL.includes(e?.status),
  );

const hexHmac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

async function scheduleExists(scheduleId: string): Promise<boolean> {
  try {
    await temporal.schedule.getHandle(scheduleId).describe();
    return true;
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return false;
    throw error;
  }
}

async function listedScheduleIds(): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const summary of temporal.schedule.list()) ids.add(summary.scheduleId);
  return ids;
}

beforeAll(async () => {
  outside = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/items') {
        pollRequests++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(pollAnswer));
        return;
      }
      if (req.method === 'POST' && req.url === '/receiver') received.push({ headers: req.headers, body });
      if (req.method === 'POST' && req.url === `/v21.0/${CHAT_NUMBER_ID}/messages`) {
        chatSent.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: `wamid.UP${chatSent.length}` }] }),
        );
        return;
      }
      if (req.method === 'POST' && req.url === '/ai/v1/chat/completions') {
        aiPrompts.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            model: 'local',
            choices: [{ message: { content: '{"urgent": true}' }, finish_reason: 'stop' }],
          }),
        );
        return;
      }
      if (req.method === 'GET' && req.url === '/private') {
        const authorized = req.headers.authorization === `Bearer ${API_TOKEN}`;
        res.writeHead(authorized ? 200 : 401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ authorized }));
        return;
      }
      res.writeHead(req.url === '/receiver' ? 200 : 404).end();
    });
  });
  await new Promise<void>((r) => outside.listen(0, '127.0.0.1', r));
  const address = outside.address();
  outsideUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, _session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => {
        raw += chunk.toString('utf8');
      });
      stream.on('end', () => {
        mails.push(raw);
        callback();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  smtpPort = (smtp.server.address() as AddressInfo).port;

  dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-up-'));
  await chmod(dataDir, 0o755); // PostgreSQL may run as another system user
  ports = { web: await freePort(), pg: await freePort(), temporal: await freePort(), ui: await freePort() };
  base = `http://127.0.0.1:${ports.web}`;
  appKey = randomBytes(32).toString('base64');
  env = {
    ...process.env,
    APP_KEY: `base64:${appKey}`,
    APP_URL: base,
    PORT: String(ports.web),
    WEFT_DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(ports.pg),
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    DATABASE_URL: '',
    DATABASE_ADMIN_URL: '',
    TEMPORAL_ADDRESS: '',
    // The local stand-ins above live on loopback, which the SSRF guard refuses by default.
    SSRF_ALLOWLIST: '127.0.0.1/32',
    CHAT_CLOUD_BASE_URL: outsideUrl,
  };

  const first = await startUp();
  running = first.child;
  firstOutput = first.output;
  connection = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
  // The stack encrypts every Temporal payload with a key derived from APP_KEY; so must this client.
  temporal = new Client({
    connection,
    dataConverter: { payloadCodecs: [createEncryptionCodec(Buffer.from(appKey, 'base64'))] },
  });
}, 180_000);

afterAll(async () => {
  await connection?.close();
  // A failed assertion must not leave the stack running behind the test.
  if (running) await stop(running);
  outside?.close();
  await new Promise<void>((r) => (smtp ? smtp.close(r) : r()));
  keepStackLogs(dataDir, 'weft-up');
  await rm(dataDir, { recursive: true, force: true });
});

describe('weft up', () => {
  it('serves the API, its docs and the Temporal UI once ready', async () => {
    expect(firstOutput()).toContain(`API docs:    ${base}/api/v1/docs`);
    expect(firstOutput()).toContain(`Temporal UI: http://localhost:${ports.ui}`);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok' } });
    expect((await fetch(`${base}/api/v1/docs`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);
  });

  it('creates an organization and an API key through the CLI in the running database', async () => {
    org = await cli<{ id: string }>('org', 'create', '--name', 'Up test', '--json');
    const key = await cli<{ key: string }>(
      'api-key',
      'create',
      '--org',
      org.id,
      '--name',
      'admin',
      '--permissions',
      '*',
      '--json',
    );
    expect(key.key).toMatch(/^weft_/);
    apiKey = key.key;
    expect((await api('GET', '/workflows')).status).toBe(200);
  }, 60_000);

  /**
   * cart.abandoned needs a real minute of inactivity on the dev server: this test arms the timer and
   * the check near the end of the file collects the result, so the wait overlaps the other checks and
   * a restart of the whole stack (the timer is durable: it lives in Temporal, not in a process).
   */
  const cart = { id: `cart-${randomUUID()}`, workflowId: '', publishedAt: 0, stoppedAt: 0, restartedAt: 0 };

  it('cart.abandoned (1/2): `weft settings set` sets a 1-minute inactivity period; cart.created arms it', async () => {
    const saved = await cli('settings', 'set', '--org', org.id, '--cart-inactivity-minutes', '1', '--json');
    expect(saved).toMatchObject({ cart_inactivity_minutes: 1 });
    expect((await api('GET', '/settings')).json).toMatchObject({ cart_inactivity_minutes: 1 });
    await expect(
      cli('settings', 'set', '--org', org.id, '--cart-inactivity-minutes', '0', '--json'),
    ).rejects.toThrow(/cart_inactivity_minutes/);

    const listener = await createWorkflow({
      name: 'abandoned carts',
      trigger_type: 'event',
      trigger_config: { event: 'cart.abandoned' },
      nodes: echo('{{trigger.cart_id}} worth {{trigger.total}}'),
    });
    cart.workflowId = listener.id;
    cart.publishedAt = Date.now();
    const published = await api('POST', '/events', {
      event: 'cart.created',
      payload: { cart_id: cart.id, total: 42 },
    });
    expect(published.status, JSON.stringify(published.json)).toBe(202);
  }, 60_000);

  it('creates users through the CLI (password on stdin, never argv): e-mail addresses unique regardless of case, passwords of 8+ characters; lists and revokes them', async () => {
    const user = await cliWithInput(
      'correct horse\n',
      'user',
      'create',
      '--org',
      org.id,
      '--email',
      'Ada@Example.com',
      '--password-stdin',
      '--role',
      'admin',
      '--json',
    );
    expect(user).toMatchObject({ email: 'Ada@Example.com', role: 'admin' });
    await expect(
      cliWithInput(
        'another one',
        'user',
        'create',
        '--org',
        org.id,
        '--email',
        'ada@example.com',
        '--password-stdin',
        '--json',
      ),
    ).rejects.toThrow(/already exists/);
    await expect(
      cliWithInput(
        'short',
        'user',
        'create',
        '--org',
        org.id,
        '--email',
        'bob@example.com',
        '--password-stdin',
        '--json',
      ),
    ).rejects.toThrow(/at least 8/);
    // A password on the command line is not an option any more: refused before anything runs.
    await expect(
      cli('user', 'create', '--org', org.id, '--email', 'eve@example.com', '--password', 'in plain sight'),
    ).rejects.toThrow(/unknown option '--password'/);
    // Without a terminal and without --password-stdin there is nobody to ask.
    await expect(cli('user', 'create', '--org', org.id, '--email', 'eve@example.com')).rejects.toThrow(
      /--password-stdin/,
    );

    const bob = await cliWithInput<{ id: string }>(
      'a fine password',
      'user',
      'create',
      '--org',
      org.id,
      '--email',
      'bob@example.com',
      '--password-stdin',
      '--json',
    );
    const listed = await cli<{ users: { id: string; email: string; role: string }[] }>(
      'user',
      'list',
      '--org',
      org.id,
      '--json',
    );
    expect(listed.users.map((u) => u.email)).toEqual(
      expect.arrayContaining(['Ada@Example.com', 'bob@example.com']),
    );
    await cli('user', 'revoke', '--org', org.id, '--id', bob.id, '--json');
    const after = await cli<{ users: { email: string }[] }>('user', 'list', '--org', org.id, '--json');
    expect(after.users.map((u) => u.email)).not.toContain('bob@example.com');
  }, 90_000);

  it('lists and revokes API keys through the CLI: a revoked key is refused at once, the key itself is never listed', async () => {
    const created = await cli<{ id: string; key: string }>(
      'api-key',
      'create',
      '--org',
      org.id,
      '--name',
      'temporary',
      '--permissions',
      'workflows.view',
      '--json',
    );
    const ok = await fetch(`${base}/api/v1/workflows`, { headers: { 'X-Api-Key': created.key } });
    expect(ok.status).toBe(200);
    const listed = await cli<{ api_keys: Record<string, unknown>[] }>(
      'api-key',
      'list',
      '--org',
      org.id,
      '--json',
    );
    const entry = listed.api_keys.find((k) => k.id === created.id);
    expect(entry).toMatchObject({ name: 'temporary', revoked_at: null });
    expect(JSON.stringify(listed)).not.toContain(created.key);
    const revoked = await cli<{ revoked_at: string | null }>(
      'api-key',
      'revoke',
      '--org',
      org.id,
      '--id',
      created.id,
      '--json',
    );
    expect(revoked.revoked_at).not.toBeNull();
    const refused = await fetch(`${base}/api/v1/workflows`, { headers: { 'X-Api-Key': created.key } });
    expect(refused.status).toBe(401);
  }, 60_000);

  it('runs a manual workflow and delivers a signed execution.completed to a subscribed webhook', async () => {
    const subscribed = await api('POST', '/webhooks', {
      url: `${outsideUrl}/receiver`,
      events: ['execution.completed'],
    });
    expect(subscribed.status, JSON.stringify(subscribed.json)).toBe(201);
    const { id: webhookId, secret } = subscribed.json as { id: string; secret: string };
    expect(secret).toMatch(/^whsec_/);

    const workflow = await createWorkflow({
      name: 'survives restarts',
      trigger_type: 'manual',
      nodes: echo('hi {{trigger.hello}}'),
    });
    const started = await api('POST', `/workflows/${workflow.id}/execute`, { input: { hello: 'world' } });
    expect(started.status).toBe(202);
    const executionId = started.json.execution_id as string;
    const execution = await settled(executionId);
    expect(execution.status).toBe('success');
    expect(execution.steps[0].output).toEqual({ seen: 'hi world' });

    // Other executions of this organization are delivered too; this one's must come exactly once.
    const forThisExecution = () =>
      received.filter((r) => JSON.parse(r.body).data?.execution?.id === executionId);
    const deliveries = await eventually(
      'the receiver gets the delivery',
      async () => forThisExecution(),
      (d) => d.length > 0,
    );
    const { headers, body: raw } = deliveries[0] as Received;
    const body = JSON.parse(raw);
    expect(body).toMatchObject({ event: 'execution.completed', data: { execution: { status: 'success' } } });
    expect(headers['x-webhook-event']).toBe('execution.completed');
    expect(headers['x-webhook-id']).toBe(body.id);
    // Our own HMAC over the exact bytes received, keyed with the generated secret from the create
    // response exactly as shown (the spec's rule), never its base64-decoded bytes.
    expect(headers['x-webhook-signature']).toBe(hexHmac(secret, raw));
    const decoded = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(headers['x-webhook-signature']).not.toBe(createHmac('sha256', decoded).update(raw).digest('hex'));

    const logged = await eventually(
      'the delivery log shows it succeeded',
      async () => (await api('GET', `/webhooks/${webhookId}/deliveries`)).json.data as Json[],
      (list) => list.some((d) => d.id === body.id && d.status === 'succeeded'),
    );
    expect(logged.find((d) => d.id === body.id)).toMatchObject({
      event: 'execution.completed',
      attempt_count: 1,
      last_status_code: 200,
    });
    expect(forThisExecution()).toHaveLength(1);
  }, 60_000);

  it('schedule: an active cron workflow has its Temporal Schedule, and a fire runs it with scheduled_at', async () => {
    const workflow = await createWorkflow({
      name: 'every minute',
      trigger_type: 'schedule',
      trigger_config: { cron: '* * * * *' },
      nodes: echo('{{trigger.scheduled_at}}'),
    });
    const handle = temporal.schedule.getHandle(triggerScheduleId('schedule', workflow.id));
    const description = await handle.describe();
    expect(description.state).toMatchObject({ paused: false, note: 'weft: cron "* * * * *" in UTC' });
    expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'scheduledFire' });

    const triggeredAt = Date.now();
    await handle.trigger();
    const fired = await eventually(
      'a fire at or after the trigger succeeds',
      async () => {
        const runs = await Promise.all((await executionsOf(workflow.id)).map((e) => settled(e.id)));
        return runs.filter((e) => Date.parse(e.steps[0]?.output?.seen) >= triggeredAt - 1000);
      },
      (runs) => runs.length > 0,
    );
    expect(fired[0]).toMatchObject({
      status: 'success',
      trigger: 'schedule',
      event: `scheduled.${workflow.id}`,
    });
  }, 60_000);

  let pollingWorkflowId: string;

  it('polling: two polls with overlapping answers run each distinct item exactly once', async () => {
    pollAnswer = { data: [{ id: 1 }, { id: 2 }, { id: 3 }] };
    const workflow = await createWorkflow({
      name: 'new orders',
      trigger_type: 'polling',
      // A yearly cron: only the triggers below poll during the test.
      trigger_config: {
        url: `${outsideUrl}/items`,
        cron: '0 0 1 1 *',
        items_path: 'data',
        dedup_key: 'id',
        baseline: false,
      },
      nodes: echo('{{trigger.id}}'),
    });
    pollingWorkflowId = workflow.id;
    const handle = temporal.schedule.getHandle(triggerScheduleId('polling', workflow.id));
    const pollStatus = async () => (await api('GET', `/workflows/${workflow.id}/poll-status`)).json;

    await handle.trigger();
    const first = await eventually(
      'the first poll is recorded',
      pollStatus,
      (s) => s.last_polled_at !== null,
    );
    expect(first).toMatchObject({ last_status: 'ok', last_new_items: 3, last_error: null });

    pollAnswer = { data: [{ id: 2 }, { id: 3 }, { id: 4 }] };
    await handle.trigger();
    const second = await eventually(
      'the second poll is recorded',
      pollStatus,
      (s) => s.last_polled_at !== first.last_polled_at,
    );
    expect(second).toMatchObject({ last_status: 'ok', last_new_items: 1, last_error: null });
    expect(pollRequests).toBe(2);

    const runs = await Promise.all((await executionsOf(workflow.id)).map((e) => settled(e.id)));
    for (const e of runs) expect(e).toMatchObject({ status: 'success', trigger: 'polling' });
    expect(runs.map((e) => String(e.steps[0].output.seen)).sort()).toEqual(['1', '2', '3', '4']);
  }, 60_000);

  it('inbound webhook: a signed POST to webhook_url runs the workflow; an unsigned one is 401', async () => {
    const secret = `hook-${randomUUID()}`;
    const workflow = await createWorkflow({
      name: 'hooked',
      trigger_type: 'webhook',
      trigger_config: { secret },
      nodes: echo('hello {{trigger.name}}'),
    });
    expect(workflow.webhook_url).toMatch(new RegExp(`^${base}/api/hooks/[A-Za-z0-9_-]{43}$`));
    const raw = JSON.stringify({ name: 'Ada' });
    const post = (headers: Record<string, string>) =>
      fetch(workflow.webhook_url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: raw,
      });

    const unsigned = await post({});
    expect(unsigned.status).toBe(401);
    expect(((await unsigned.json()) as Json).error.code).toBeTypeOf('string');
    expect((await post({ 'X-Webhook-Signature': hexHmac('wrong secret', raw) })).status).toBe(401);
    expect(await executionsOf(workflow.id)).toEqual([]);

    const signed = await post({ 'X-Webhook-Signature': hexHmac(secret, raw) });
    expect(signed.status).toBe(202);
    const { execution_ids } = (await signed.json()) as { execution_ids: string[] };
    expect(execution_ids.length).toBeGreaterThanOrEqual(1);
    const execution = await settled(execution_ids[0] as string);
    expect(execution).toMatchObject({
      status: 'success',
      workflow_id: workflow.id,
      trigger: 'webhook',
      event: 'webhook.received',
    });
    expect(execution.steps[0].output).toEqual({ seen: 'hello Ada' });
  }, 60_000);

  it('`weft triggers reconcile --json` recreates a lost schedule and removes an orphaned one', async () => {
    const lost = triggerScheduleId('polling', pollingWorkflowId);
    const orphan = triggerScheduleId('schedule', randomUUID());
    await temporal.schedule.getHandle(lost).delete();
    await temporal.schedule.create({
      scheduleId: orphan,
      spec: { cronExpressions: ['0 0 1 1 *'] },
      action: { type: 'startWorkflow', workflowType: 'scheduledFire', taskQueue: 'weft', args: [] },
      state: { paused: true },
    });
    // The reconciler reads Temporal's schedule list, which follows changes a moment later.
    await eventually(
      'the schedule list shows the drift',
      listedScheduleIds,
      (ids) => ids.has(orphan) && !ids.has(lost),
    );

    const report = await cli<Json>('triggers', 'reconcile', '--json');
    expect(report).toMatchObject({ created: [lost], deleted: [orphan], updated: [], paused: [], failed: [] });
    expect(report.unchanged).toBeGreaterThanOrEqual(1); // the every-minute schedule
    expect(await scheduleExists(lost)).toBe(true);
    expect(await scheduleExists(orphan)).toBe(false);
  }, 60_000);

  it('modules: an inbound chat message gets a reply in its window, an AI answer picks a branch that e-mails, a credential authenticates', async () => {
    const configure = async (name: string, body: Json) => {
      const { status, json } = await api('PUT', `/modules/${name}`, body);
      expect(status, JSON.stringify(json)).toBe(200);
    };
    await configure('chat', {
      provider: 'cloud',
      business_account_id: '102290129340398',
      phone_number_id: CHAT_NUMBER_ID,
      access_token: 'up-access-token',
      app_secret: CHAT_APP_SECRET,
      verify_token: 'up-verify',
    });
    await configure('ai', {
      provider: 'openai',
      base_url: `${outsideUrl}/ai/v1`,
      api_key: 'sk-up',
      default_model: 'local',
    });
    await configure('email', {
      host: '127.0.0.1',
      port: smtpPort,
      security: 'none',
      allow_insecure: true,
      from_email: 'weft@example.com',
    });
    const credential = await api('POST', '/credentials', {
      name: 'outside',
      type: 'http_bearer',
      fields: { token: API_TOKEN },
    });
    expect(credential.status).toBe(201);

    await createWorkflow({
      name: 'triage chat',
      trigger_type: 'chat',
      nodes: [
        {
          id: 'ask',
          type: 'action.ai.prompt',
          config: { prompt: 'Is this urgent? {{trigger.text}}', json: true },
        },
        {
          id: 'urgent',
          type: 'action.condition',
          config: { conditions: [{ left: '{{nodes.ask.json.urgent}}', operator: 'equals', right: 'true' }] },
        },
        {
          id: 'reply',
          type: 'action.chat.send',
          config: { to: '{{trigger.sender}}', message: 'On it, {{trigger.profile_name}}!' },
        },
        {
          id: 'page',
          type: 'action.email.send',
          config: {
            to: 'oncall@example.com',
            subject: 'Urgent chat from {{trigger.from}}',
            body: '{{trigger.text}}',
          },
        },
        {
          id: 'check',
          type: 'action.http_request',
          config: { url: `${outsideUrl}/private`, credential_id: credential.json.id },
        },
      ],
      edges: [
        { source: 'ask', target: 'urgent' },
        { source: 'urgent', target: 'reply', source_handle: 'true' },
        { source: 'urgent', target: 'page', source_handle: 'true' },
        { source: 'page', target: 'check' },
      ],
    });
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: CHAT_NUMBER_ID },
                contacts: [{ profile: { name: 'Ada' }, wa_id: '16505551234' }],
                messages: [
                  {
                    from: '16505551234',
                    id: 'wamid.UPIN',
                    type: 'text',
                    text: { body: 'The site is down!' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const inbound = await fetch(`${base}/api/webhooks/chat`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${hexHmac(CHAT_APP_SECRET, body)}`,
      },
      body,
    });
    expect(inbound.status).toBe(200);
    const workflows = (await api('GET', '/workflows?per_page=100')).json.data as Json[];
    const triage = workflows.find((w) => w.name === 'triage chat');
    const [run] = await eventually(
      'the chat workflow runs',
      () => executionsOf(triage.id),
      (list) => list.length === 1,
    );
    const execution = await settled(run.id);
    expect(execution.status, JSON.stringify(execution.steps)).toBe('success');
    const step = (id: string) => execution.steps.find((s: Json) => s.node_id === id);
    expect(step('ask').output.json).toEqual({ urgent: true });
    expect(aiPrompts.at(-1)?.messages).toEqual([
      { role: 'user', content: 'Is this urgent? The site is down!' },
    ]);
    expect(chatSent).toEqual([
      expect.objectContaining({ to: '16505551234', text: { body: 'On it, Ada!', preview_url: false } }),
    ]);
    expect(mails).toHaveLength(1);
    // The subject carries the masked number (non-ASCII bullets, so MIME-encoded); the body the text.
    expect(mails[0]).toMatch(/^Subject: =\?UTF-8\?/m);
    expect(mails[0]).toContain('The site is down!');
    expect(mails[0]).not.toContain('16505551234');
    expect(step('check').output.body).toEqual({ authorized: true });
    expect(JSON.stringify(execution)).not.toContain(API_TOKEN);
    expect(JSON.stringify(execution)).not.toContain('16505551234');
  });

  it('`weft workflows export|import` moves every workflow to another organization as drafts, without secrets', async () => {
    const file = path.join(dataDir, 'export.json');
    const exported = await cli<{ exported: number }>(
      'workflows',
      'export',
      '--org',
      org.id,
      '--file',
      file,
      '--json',
    );
    const mine = await api('GET', '/workflows?per_page=100');
    expect(exported.exported).toBe(mine.json.meta.total);
    expect(exported.exported).toBeGreaterThan(2);
    const text = await readFile(file, 'utf8');
    expect(JSON.parse(text)).toMatchObject({ format: 'weft.workflows/v1' });
    expect(text).not.toMatch(/"secret"/);

    const other = await cli<{ id: string }>('org', 'create', '--name', 'Import target', '--json');
    // Exit code 1 when some could not come in; stdout still carries the report.
    const importRun = await run(
      process.execPath,
      [CLI, 'workflows', 'import', '--org', other.id, '--file', file, '--json'],
      { env },
    ).catch((error: { stdout: string }) => error);
    const imported = JSON.parse(importRun.stdout) as {
      imported: number;
      failed: number;
      workflows: { name: string; id?: string; error?: string }[];
    };
    // Workflows that use one of this organization's credentials cannot come in without it: reported, not fatal.
    expect(imported.imported + imported.failed).toBe(exported.exported);
    expect(imported.imported).toBeGreaterThan(0);
    for (const failure of imported.workflows.filter((w) => w.error))
      expect(failure.error).toMatch(/credential/i);
    const key = await cli<{ key: string }>(
      'api-key',
      'create',
      '--org',
      other.id,
      '--name',
      'check',
      '--permissions',
      '*',
      '--json',
    );
    const listed = await fetch(`${base}/api/v1/workflows?per_page=100`, {
      headers: { 'X-Api-Key': key.key },
    }).then((r) => r.json() as Promise<Json>);
    expect(listed.meta.total).toBe(imported.imported);
    expect(listed.data.every((w: { status: string }) => w.status === 'draft')).toBe(true);

    await writeFile(path.join(dataDir, 'not-an-export.json'), '{"hello": 1}');
    await expect(
      cli('workflows', 'import', '--org', other.id, '--file', path.join(dataDir, 'not-an-export.json')),
    ).rejects.toThrow(/not a weft.workflows\/v1 export/);
  }, 90_000);

  it('stops cleanly on Ctrl-C and reuses its data on the next start', async () => {
    const names = async () =>
      ((await api('GET', '/workflows?per_page=100')).json.data as { name: string }[])
        .map((w) => w.name)
        .sort();
    const before = await names();
    expect(before).toContain('survives restarts');

    await connection?.close();
    connection = undefined;
    cart.stoppedAt = Date.now();
    // A terminal's Ctrl-C: SIGINT to the whole process group, PostgreSQL and the dev server
    // included, which then stop by themselves. weft up used to end mid-stop then (waiting for
    // PostgreSQL's exit, which had already happened), its lock file left behind.
    const stopping = running as ChildProcess;
    const exited = new Promise<number | null>((resolve) => stopping.once('exit', (code) => resolve(code)));
    process.kill(-(stopping.pid as number), 'SIGINT');
    expect(await exited).toBe(0);
    running = undefined;
    expect(firstOutput()).toContain('[weft] stopped.');
    expect(existsSync(path.join(dataDir, 'weft-up.json'))).toBe(false);
    for (const port of Object.values(ports))
      expect(await portAnswers(port), `port ${port} still open`).toBe(false);

    cart.restartedAt = Date.now();
    const second = await startUp();
    running = second.child;
    expect(await names()).toEqual(before);
  }, 240_000);

  it('cart.abandoned (2/2): fires once with the cart payload after a quiet minute, across the restart', async () => {
    const runs = await eventually(
      'cart.abandoned runs',
      () => executionsOf(cart.workflowId),
      (list) => list.length > 0,
      Math.max(cart.publishedAt + 150_000 - Date.now(), 1000),
    );
    expect(runs).toHaveLength(1);
    const execution = await settled(runs[0].id);
    expect(execution).toMatchObject({ status: 'success', trigger: 'event', event: 'cart.abandoned' });
    expect(execution.steps[0].output).toEqual({ seen: `${cart.id} worth 42` });
    // Not before the inactivity period had passed (the server's clock is this machine's).
    const startedAt = Date.parse(execution.started_at);
    expect(startedAt - cart.publishedAt).toBeGreaterThanOrEqual(59_000);
    // When the stack went down before the timer was due (the usual timing), the restarted one fired it.
    if (cart.stoppedAt < cart.publishedAt + 60_000) expect(startedAt).toBeGreaterThan(cart.restartedAt);
  }, 160_000);

  it('stops the restarted stack cleanly, a second Ctrl-C included: nothing is left running', async () => {
    const child = running as ChildProcess;
    running = undefined;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    // An impatient second Ctrl-C sent to weft alone (as `kill -INT` does) used to end it at once,
    // leaving PostgreSQL and the Temporal dev server running.
    setTimeout(() => child.kill('SIGINT'), 200);
    expect(await exited).toBe(0);
    for (const port of Object.values(ports))
      expect(await portAnswers(port), `port ${port} still open`).toBe(false);
  }, 60_000);
});
