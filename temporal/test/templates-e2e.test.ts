/**
 * Every template of the gallery, end to end: cloned through the API, pointed at local systems (its
 * HTTP nodes' origin becomes a local server answering its `sample.http_responses`), started the way
 * its trigger starts it with its sample payload, and run by the real interpreter on a real Temporal
 * server (the time-skipping one: "wait 2 days" passes at once) and PostgreSQL, against local chat,
 * SMTP and AI providers. The run must end in the status its sample promises, every step that ran
 * must have completed, and every side effect a step reports must have reached its fake.
 */
import { createHmac } from 'node:crypto';
import { EVENT_CATALOG, getTemplate, listTemplates } from '@weft/domain';
import { maskPhoneText } from '@weft/nodes';
import { createEngineHarness, type EngineHarness, TERMINAL_STATUSES } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpFake, startMcpFake } from './mcp-fake';
import {
  AI_API_KEY,
  type AiFake,
  type AiTurn,
  BUSINESS_ACCOUNT_ID,
  CHAT_ACCESS_TOKEN,
  type ChatFake,
  type ChatTemplateSpec,
  PHONE_NUMBER_ID,
  SMTP_PASSWORD,
  SMTP_USER,
  type SmtpFake,
  startAiFake,
  startChatFake,
  startHttpTarget,
  startSmtpFake,
} from './template-fakes';

type Template = ReturnType<typeof getTemplate>;
type TemplateNode = Template['workflow']['nodes'][number] & { config?: Record<string, any> };

const TEMPLATES: Template[] = listTemplates({}).map((summary) => getTemplate(summary.id));
const byId = new Map(TEMPLATES.map((t) => [t.id, t]));

const APP_SECRET = 'templates-e2e-app-secret';
const DEFAULT_AI_REPLY = 'Noted: nothing unusual here.';
/** The budget of each wait on a run: close to the test's own timeout (60 s), a busy machine is slow. */
const WAIT_MS = 50_000;

const nodesOf = (template: Template) => template.workflow.nodes as TemplateNode[];

/** The templates a template calls (`template:<id>` in action.workflow.execute), transitively. */
function calleesOf(template: Template): Template[] {
  const found: Template[] = [];
  for (const node of nodesOf(template)) {
    const id = /^template:(.+)$/.exec(String(node.config?.workflow_id ?? ''))?.[1];
    const callee = id ? byId.get(id) : undefined;
    if (callee) found.push(callee, ...calleesOf(callee));
  }
  return found;
}

/** Whether a run of the template waits on a durable timer (a delay, or an event wait's timeout). */
const hasTimers = (template: Template) =>
  [template, ...calleesOf(template)].some((t) =>
    nodesOf(t).some((n) => ['action.delay', 'action.wait_for_event', 'action.approval'].includes(n.type)),
  );

/**
 * Every chat template the gallery sends: the `template_name` of send_template nodes (with their
 * variable count) and the `fallback_template` of send nodes (no variables; `name` alone is en_US).
 */
function chatTemplatesUsed(): ChatTemplateSpec[] {
  const specs = new Map<string, ChatTemplateSpec>();
  for (const template of TEMPLATES) {
    for (const node of nodesOf(template)) {
      const config = node.config ?? {};
      let spec: ChatTemplateSpec | undefined;
      if (node.type === 'action.chat.send_template') {
        spec = {
          name: config.template_name,
          language: config.language,
          variables: (config.variables ?? []).length,
        };
      } else if (node.type === 'action.chat.send' && config.fallback_template) {
        const [name, language = 'en_US'] = String(config.fallback_template).split(':');
        spec = { name: name as string, language, variables: 0 };
      }
      if (!spec) continue;
      const key = `${spec.name}:${spec.language}`;
      const known = specs.get(key);
      if (known && known.variables !== spec.variables) {
        throw new Error(
          `chat template ${key} is used with ${known.variables} and ${spec.variables} variables`,
        );
      }
      specs.set(key, spec);
    }
  }
  return [...specs.values()];
}

let h: EngineHarness;
let org: { organizationId: string; key: string };
let chat: ChatFake;
let ai: AiFake;
let smtp: SmtpFake;
/** What all runs' completed steps reported, to compare with what the fakes received in the end. */
const totals = { email: 0, chat: 0, ai: 0 };
/** What the AI provider answers: the sample's `ai_reply` of the template under test. */
let aiReply = DEFAULT_AI_REPLY;
/** The answers before it: the sample's `ai_script` (an agent's tool calls, then its final text). */
let aiScript: AiTurn[] = [];
/** The MCP server the agents' tools point at (their `mcp_url`s are rewritten to it). */
let mcp: McpFake;

beforeAll(async () => {
  [chat, ai, smtp] = await Promise.all([
    startChatFake(chatTemplatesUsed()),
    startAiFake(() => aiScript.shift() ?? aiReply),
    startSmtpFake(),
  ]);
  mcp = await startMcpFake();
  h = await createEngineHarness({
    timeSkipping: true,
    ssrfAllowlist: ['127.0.0.0/8'],
    chatCloudBaseUrl: chat.url,
  });
  org = await h.createOrg('Template Tester');
  const modules: [string, Record<string, unknown>][] = [
    [
      'chat',
      {
        provider: 'cloud',
        business_account_id: BUSINESS_ACCOUNT_ID,
        phone_number_id: PHONE_NUMBER_ID,
        access_token: CHAT_ACCESS_TOKEN,
        app_secret: APP_SECRET,
        verify_token: 'templates-e2e-verify',
      },
    ],
    [
      'email',
      {
        host: '127.0.0.1',
        port: smtp.port,
        security: 'none',
        allow_insecure: true,
        username: SMTP_USER,
        password: SMTP_PASSWORD,
        from_email: 'automation@weft.example',
        from_name: 'Weft',
      },
    ],
    [
      'ai',
      { provider: 'openai', base_url: `${ai.url}/v1`, api_key: AI_API_KEY, default_model: 'local-model' },
    ],
  ];
  for (const [name, body] of modules) {
    const res = await h.request('PUT', `/api/v1/modules/${name}`, { key: org.key, body });
    expect(res.status, `${name} module: ${await res.text()}`).toBe(200);
  }
  const synced = await h.request('POST', '/api/v1/chat/templates/sync', { key: org.key });
  expect(synced.status, await synced.clone().text()).toBe(200);
  const approved = ((await synced.json()) as any).data.filter((t: any) => t.status === 'APPROVED');
  expect(approved.map((t: any) => `${t.name}:${t.language}`).sort()).toEqual(
    chatTemplatesUsed()
      .map((t) => `${t.name}:${t.language}`)
      .sort(),
  );
}, 120_000);

afterAll(async () => {
  await h?.close();
  await Promise.all([chat?.close(), ai?.close(), smtp?.close(), mcp?.close()]);
});

async function api(method: string, path: string, body?: unknown, expected = 200): Promise<any> {
  const res = await h.request(method, path, { key: org.key, body });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

/** The workflow as PUT takes it, with another status. */
const saveBody = (workflow: any, status: string) => ({
  name: workflow.name,
  description: workflow.description,
  trigger_type: workflow.trigger_type,
  trigger_config: workflow.trigger_config,
  status,
  nodes: workflow.nodes,
  edges: workflow.edges,
});

/** `https://shop.example.com/api/x?y={{…}}` → `<origin>/api/x?y={{…}}`: the path and query stay. */
const withOrigin = (url: string, origin: string) => url.replace(/^https?:\/\/[^/?#]+/i, origin);

/**
 * As a user pointing a clone at their own systems: every HTTP node's URL (and a polling trigger's)
 * gets the local server's origin, in this workflow and every workflow it calls; saved with PUT.
 */
async function pointAt(workflowId: string, origin: string, status: string): Promise<any> {
  const workflow = await api('GET', `/api/v1/workflows/${workflowId}`);
  for (const node of workflow.nodes) {
    if (node.type === 'action.http_request') node.config.url = withOrigin(node.config.url, origin);
    if (node.type === 'action.ai.agent') {
      for (const tool of node.config.tools ?? []) {
        if (tool.mcp_url) tool.mcp_url = mcp.url;
        // A tool workflow the clone made of another template: its HTTP calls go to the target too.
        if (tool.workflow_id) await pointAt(tool.workflow_id, origin, 'draft');
      }
    }
    if (node.type === 'action.workflow.execute') {
      // The clone calls its own copy of the callee template, not `template:<id>`.
      expect(node.config.workflow_id).toMatch(/^[0-9a-f-]{36}$/);
      await pointAt(node.config.workflow_id, origin, 'draft');
    }
  }
  if (workflow.trigger_type === 'polling') {
    workflow.trigger_config.url = withOrigin(workflow.trigger_config.url, origin);
  }
  const saved = await api('PUT', `/api/v1/workflows/${workflowId}`, saveBody(workflow, status));
  for (const node of saved.nodes) {
    if (node.type === 'action.http_request') expect(node.config.url.startsWith(`${origin}/`)).toBe(true);
  }
  return saved;
}

/** A signed inbound chat message of the cloud provider, as its webhook delivers it. */
async function deliverChatMessage(payload: Record<string, any>, messageId: string) {
  const sender = String(payload.sender).replace(/^\+/, '');
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: BUSINESS_ACCOUNT_ID,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_NUMBER_ID },
              contacts: [{ profile: { name: payload.profile_name ?? 'Customer' }, wa_id: sender }],
              messages: [
                {
                  from: sender,
                  id: messageId,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'text',
                  text: { body: String(payload.text ?? '') },
                },
              ],
            },
          },
        ],
      },
    ],
  });
  const res = await h.app.request('/api/webhooks/chat', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`,
    },
    body,
  });
  expect(await res.json(), 'inbound chat message').toEqual({ received: 1, duplicates: 0 });
}

/** Polls until the workflow has an execution (a chat message starts it asynchronously of the answer). */
async function firstExecutionOf(workflowId: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const { data } = await api('GET', `/api/v1/executions?workflow_id=${workflowId}`);
    if (data.length > 0) {
      expect(data, 'one execution per message').toHaveLength(1);
      return data[0].id;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`workflow ${workflowId} never started`);
}

/** Starts the clone the way its trigger would, with the sample payload; returns the execution id. */
async function start(template: Template, workflow: any): Promise<string> {
  const { trigger_type: triggerType, trigger_config: triggerConfig } = template.workflow;
  const payload = template.sample.trigger_payload;
  switch (triggerType) {
    case 'event': {
      const event = String(triggerConfig.event);
      const examplePayload = EVENT_CATALOG.find((e) => e.name === event)?.example_payload;
      const published = await api(
        'POST',
        '/api/v1/events',
        { event, payload: payload ?? examplePayload },
        202,
      );
      // Only the workflow under test is active: nothing else listens.
      expect(published.execution_ids, `workflows started by ${event}`).toHaveLength(1);
      return published.execution_ids[0];
    }
    case 'webhook': {
      const hook = new URL(workflow.webhook_url);
      const res = await h.app.request(hook.pathname, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload ?? {}),
      });
      const answer = (await res.json()) as any;
      expect(res.status, JSON.stringify(answer)).toBe(202);
      expect(answer.execution_ids).toHaveLength(1);
      return answer.execution_ids[0];
    }
    case 'chat':
      await deliverChatMessage(payload ?? {}, `wamid.E2E-${template.id}`);
      return firstExecutionOf(workflow.id);
    case 'tool': {
      // As an MCP client calls it: tools/call by name, with the sample as arguments.
      const res = await h.app.request('/api/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${org.key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: triggerConfig.name, arguments: payload ?? {} },
        }),
      });
      const answer = (await res.json()) as any;
      expect(res.status, JSON.stringify(answer)).toBe(200);
      expect(answer.result?.isError, JSON.stringify(answer)).toBe(false);
      return answer.result._meta['weft/execution_id'];
    }
    case 'form': {
      // As the hosted page posts it: the form's token, the answers as JSON.
      const token = new URL(workflow.form_url).pathname.split('/').pop();
      const res = await h.app.request(`/api/forms/${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload ?? {}),
      });
      const answer = (await res.json()) as any;
      expect(res.status, JSON.stringify(answer)).toBe(202);
      return answer.execution_id;
    }
    default: {
      // manual runs this way anyway. A schedule fire and a poll's new item start the same
      // interpreter with the same kind of payload ({scheduled_at} / the new item) as their
      // `trigger`; the fire and the poll themselves are covered by schedules.test.ts and
      // polling.test.ts, and Temporal Schedules do not exist on the time-skipping server.
      const started = await api(
        'POST',
        `/api/v1/workflows/${workflow.id}/execute`,
        { input: payload ?? {} },
        202,
      );
      return started.execution_id;
    }
  }
}

/** Until the execution is parked on an action.wait_for_event step. */
async function waitUntilWaiting(executionId: string) {
  await h.waitForExecution(
    org.key,
    executionId,
    (e) => e.steps.some((s: any) => s.node_type === 'action.wait_for_event' && s.status === 'waiting'),
    WAIT_MS,
  );
}

/** Until the execution waits on an action.approval step; answers the approval it asked for. */
async function pendingApprovalOf(executionId: string): Promise<any> {
  await h.waitForExecution(
    org.key,
    executionId,
    (e) => e.steps.some((s: any) => s.node_type === 'action.approval' && s.status === 'waiting'),
    WAIT_MS,
  );
  const { data } = await api('GET', '/api/v1/approvals?status=pending&per_page=100');
  const approval = data.find((a: any) => a.execution_id === executionId);
  expect(approval, `a pending approval of ${executionId}`).toBeDefined();
  return approval;
}

async function finish(template: Template, executionId: string): Promise<any> {
  if (hasTimers(template)) {
    // Skips server time up to each timer the run waits on; a failure parks the run (for a retry
    // signal), which the execution record below shows as `failed` either way.
    await h.waitForResult(executionId, WAIT_MS).catch(() => undefined);
  }
  return h.waitForExecution(org.key, executionId, (e) => TERMINAL_STATUSES.has(e.status), WAIT_MS);
}

/** The execution and those its action.workflow.execute steps started, recursively. */
async function withChildren(execution: any): Promise<any[]> {
  const all = [execution];
  const childIds = execution.steps.flatMap((step: any) => {
    if (step.node_type === 'action.workflow.execute' && step.output?.execution_id)
      return [step.output.execution_id];
    // An AI agent's calls of tool workflows are child executions too.
    if (step.node_type === 'action.ai.agent') {
      return (step.output?.tool_calls ?? []).flatMap((c: any) => (c.execution_id ? [c.execution_id] : []));
    }
    return [];
  });
  for (const id of childIds) {
    const child = await h.waitForExecution(org.key, id, (e) => TERMINAL_STATUSES.has(e.status), WAIT_MS);
    all.push(...(await withChildren(child)));
  }
  return all;
}

/** A run as a failure message shows it: status, error and each step with its error. */
const describeRuns = (runs: any[]) =>
  JSON.stringify(
    runs.map((r) => ({
      execution: r.id,
      workflow: r.workflow_name,
      status: r.status,
      error: r.error,
      steps: r.steps.map((s: any) => ({
        node: s.node_id,
        iteration: s.iteration,
        status: s.status,
        ...(s.error ? { error: s.error } : {}),
      })),
    })),
    null,
    2,
  );

// One template after the other (vitest runs a file's tests in order): an event or a chat message
// must start only the template under test, and skipped time is global to the Temporal server.
describe('templates end to end', () => {
  it.each(TEMPLATES.map((t) => [t.id, t] as const))(
    '%s clones, runs with its sample and ends as promised',
    async (_id, template) => {
      const target = await startHttpTarget((template.sample.http_responses ?? {}) as Record<string, unknown>);
      const listens = ['event', 'webhook', 'chat', 'tool', 'form'].includes(template.workflow.trigger_type);
      let workflowId: string | undefined;
      aiReply = template.sample.ai_reply ?? DEFAULT_AI_REPLY;
      aiScript = [...(template.sample.ai_script ?? [])];
      try {
        // 1. Clone (the template validates as any save) and point it at the local systems.
        const clone = await api('POST', `/api/v1/templates/${template.id}/clone`, undefined, 201);
        expect(clone.status).toBe('draft');
        expect(clone.nodes.map((n: any) => `${n.id}:${n.type}`)).toEqual(
          nodesOf(template).map((n) => `${n.id}:${n.type}`),
        );
        workflowId = clone.id as string;
        const workflow = await pointAt(workflowId, target.url, listens ? 'active' : 'draft');

        // 2. Start it as its trigger would, then publish the events it waits for.
        const before = { email: smtp.received.length, chat: chat.sent.length, ai: ai.requests.length };
        const executionId = await start(template, workflow);
        for (const later of template.sample.later_events ?? []) {
          await waitUntilWaiting(executionId);
          await api('POST', '/api/v1/events', later, 202);
        }
        for (const decision of template.sample.approvals ?? []) {
          const approval = await pendingApprovalOf(executionId);
          await api('POST', `/api/v1/approvals/${approval.id}/decision`, decision);
        }

        // 3. The end status, then every side effect against what reached the fakes.
        const execution = await finish(template, executionId);
        const runs = await withChildren(execution);
        const explain = describeRuns(runs);
        const steps = runs.flatMap((r) => r.steps);
        const completed = (type: string) =>
          steps.filter((s: any) => s.node_type === type && s.status === 'completed');
        // An approval e-mails each of its notify_email addresses a signed link.
        const approvalMails = completed('action.approval').flatMap((s: any) =>
          [s.resolved_config.notify_email ?? []].flat().flatMap((a: string) => a.split(',')),
        ).length;
        const reported = {
          email: completed('action.email.send').length + approvalMails,
          chat: completed('action.chat.send').length + completed('action.chat.send_template').length,
          // An agent's step reports each of its model calls.
          ai:
            completed('action.ai.prompt').length +
            completed('action.ai.agent').reduce((n: number, s: any) => n + s.output.model_calls.length, 0),
        };
        totals.email += reported.email;
        totals.chat += reported.chat;
        totals.ai += reported.ai;

        expect(execution.status, explain).toBe(template.sample.expected_status);
        if (template.sample.expected_status === 'success') {
          for (const run of runs) expect(run.status, explain).toBe('success');
          for (const step of steps) expect(['completed', 'skipped'], explain).toContain(step.status);
        }
        expect(
          steps.filter((s: any) => s.status === 'completed').length,
          `${explain}\nno step ran`,
        ).toBeGreaterThan(0);

        // An agent's tool calls reached the MCP server and answered without error.
        for (const agent of completed('action.ai.agent')) {
          for (const call of agent.output.tool_calls) expect(call.error, explain).toBeUndefined();
        }

        // As many e-mails, chat messages and AI requests reached the fakes during this run as its
        // completed steps report (templates run one after the other).
        expect(
          {
            email: smtp.received.length - before.email,
            chat: chat.sent.length - before.chat,
            ai: ai.requests.length - before.ai,
          },
          explain,
        ).toEqual(reported);

        // HTTP: each completed request reached the local server (method, path and query), and
        // nothing else did.
        const httpSteps = completed('action.http_request');
        const requested = httpSteps
          .map((s: any) => {
            const url = new URL(s.resolved_config.url);
            for (const [name, value] of Object.entries(s.resolved_config.query ?? {})) {
              url.searchParams.set(name, String(value));
            }
            return `${s.resolved_config.method ?? 'GET'} ${url.pathname}${url.search}`;
          })
          .sort();
        const received = target.calls.map((c) => `${c.method} ${c.path}`).sort();
        expect(received, `HTTP calls\n${explain}`).toEqual(requested);
        // A chat run stores its sender's number masked (in the clear it reaches the run only).
        const sender =
          template.workflow.trigger_type === 'chat' ? template.sample.trigger_payload?.sender : undefined;
        const stored = (text: string) =>
          typeof sender === 'string' ? text.replaceAll(sender, maskPhoneText(sender)) : text;
        for (const step of httpSteps) {
          expect(step.output.status, explain).toBe(200);
          const body = step.resolved_config.body;
          if (body === undefined) continue;
          const bodies = target.calls.map((c) =>
            typeof body === 'string' ? stored(c.body) : c.body && JSON.parse(stored(c.body)),
          );
          expect(bodies, `body of ${step.node_id}`).toContainEqual(body);
        }

        // E-mail: each message a step reports was received by the SMTP server, once.
        for (const step of completed('action.email.send')) {
          const mails = smtp.received.filter((m) => m.mail.messageId === step.output.message_id);
          expect(mails, `e-mail of ${step.node_id}`).toHaveLength(1);
          expect(mails[0]?.mail.subject, step.node_id).toBe(step.resolved_config.subject);
          const to = [step.resolved_config.to].flat().map((a: string) => a.trim().toLowerCase());
          expect(mails[0]?.envelope.map((a) => a.toLowerCase())).toEqual(expect.arrayContaining(to));
        }

        // Chat: each message a step reports reached the provider, as what the step says it was.
        for (const step of [...completed('action.chat.send'), ...completed('action.chat.send_template')]) {
          const sent = chat.sent.filter((m) => m.id === step.output.message_id);
          expect(sent, `chat message of ${step.node_id}`).toHaveLength(1);
          const body = sent[0]?.body;
          expect(body.type, step.node_id).toBe(step.output.sent_as);
          if (step.node_type === 'action.chat.send_template') {
            expect(body.template.name).toBe(step.resolved_config.template_name);
            const parameters = body.template.components?.[0]?.parameters ?? [];
            expect(parameters.map((p: any) => stored(p.text))).toEqual(
              (step.resolved_config.variables ?? []).map(String),
            );
          } else if (step.output.sent_as === 'text') {
            expect(stored(body.text.body)).toBe(step.resolved_config.message);
          }
          if (template.workflow.trigger_type === 'chat') {
            // The customer just wrote: the window is open, the reply is text to them.
            expect(step.output.sent_as).toBe('text');
            expect(`+${body.to}`).toBe(template.sample.trigger_payload?.sender);
          }
        }

        // Events a step publishes start nothing else: only the workflow under test is active.
        for (const step of completed('action.event.publish')) {
          expect(step.output.workflows_triggered, step.node_id).toBe(0);
        }

        // AI: the provider got each step's prompt, and its reply is the step's answer.
        const prompts = ai.requests
          .slice(before.ai)
          .map((r) => stored(r.body.messages.find((m: any) => m.role === 'user').content));
        for (const step of completed('action.ai.prompt')) {
          expect(prompts, step.node_id).toContain(step.resolved_config.prompt);
          expect(step.output.text).toBe(template.sample.ai_reply ?? DEFAULT_AI_REPLY);
        }
      } finally {
        // Switched off again, so the next template's events start only that template.
        if (workflowId && listens) {
          const current = await api('GET', `/api/v1/workflows/${workflowId}`);
          await api('PUT', `/api/v1/workflows/${workflowId}`, saveBody(current, 'inactive'));
        }
        await target.close();
      }
    },
    60_000,
  );

  it('the fakes received exactly what the completed steps report, nothing more', () => {
    expect(smtp.received).toHaveLength(totals.email);
    expect(chat.sent).toHaveLength(totals.chat);
    expect(ai.requests).toHaveLength(totals.ai);
  });
});
