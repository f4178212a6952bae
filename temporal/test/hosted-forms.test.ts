import { createServer, type Server } from 'node:http';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// trigger_type form end to end: the workflow resource shows its public page, the page's API
// describes the fields, and a submission (JSON or form-encoded), checked against them, starts an
// execution with the answers as its trigger. A low per-form rate limit and a local captcha verifier.

const RATE = 8;
let h: EngineHarness;
let org: { organizationId: string; key: string };
let captchaServer: Server;

const FIELDS = [
  { name: 'name', label: 'Your name', type: 'text', required: true },
  { name: 'email', label: 'Your e-mail', type: 'email', required: true },
  { name: 'seats', label: 'Seats', type: 'number' },
  { name: 'plan', label: 'Plan', type: 'select', options: ['Team', 'Business'], required: true },
  { name: 'notes', label: 'Notes', type: 'textarea' },
  { name: 'consent', label: 'You may contact me', type: 'checkbox', required: true },
];

async function call(method: string, path: string, body?: unknown) {
  const res = await h.request(method, `/api/v1${path}`, { key: org.key, body });
  return { status: res.status, body: (await res.json()) as any };
}

async function formWorkflow(config: Record<string, unknown> = {}, status = 'active') {
  const created = await call('POST', '/workflows', {
    name: `form ${Math.random()}`,
    trigger_type: 'form',
    trigger_config: { title: 'Talk to sales', fields: FIELDS, ...config },
    status,
    nodes: [
      {
        id: 'echo',
        type: 'action.transform',
        config: { assignments: [{ key: 'who', value: '{{trigger.name}}' }] },
      },
    ],
    edges: [],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const tokenOf = (workflow: any) => new URL(workflow.form_url).pathname.split('/').pop() as string;

function post(token: string, body: string, type = 'application/json') {
  return h.app.request(`/api/forms/${token}`, { method: 'POST', headers: { 'content-type': type }, body });
}

beforeAll(async () => {
  captchaServer = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: new URLSearchParams(raw).get('response') === 'human' }));
    });
  });
  await new Promise<void>((r) => captchaServer.listen(0, '127.0.0.1', r));
  const address = captchaServer.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  h = await createEngineHarness({
    apiEnv: {
      HOOK_RATE_LIMIT: RATE,
      CAPTCHA_ENABLED: true,
      HCAPTCHA_SITE_KEY: 'site-key',
      HCAPTCHA_SECRET: 'captcha-secret',
      CAPTCHA_VERIFY_URL: `http://127.0.0.1:${port}/siteverify`,
    },
  });
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  await h?.close();
  captchaServer?.close();
});

describe('trigger_type form', () => {
  it('refuses a form config that cannot be drawn', async () => {
    const bad = await call('POST', '/workflows', {
      name: 'bad form',
      trigger_type: 'form',
      trigger_config: {
        title: 'x',
        fields: [
          { name: 'plan', label: 'Plan', type: 'select' },
          { name: 'plan', label: 'Again', type: 'text' },
        ],
      },
      nodes: [],
      edges: [],
    });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body.error.fields)).toMatch(/options/);
    expect(JSON.stringify(bad.body.error.fields)).toMatch(/unique/);
  });

  it('shows its public page on the workflow, describes its fields, and a JSON submission starts a run', async () => {
    const workflow = await formWorkflow();
    expect(workflow.form_url).toMatch(/^http:\/\/localhost:3000\/forms\/[A-Za-z0-9_-]{43}$/);
    expect(workflow.webhook_url).toBeUndefined();
    const token = tokenOf(workflow);

    const described = await h.app.request(`/api/forms/${token}`);
    expect(described.status).toBe(200);
    const form = (await described.json()) as any;
    expect(form).toMatchObject({ title: 'Talk to sales', open: true, captcha: null, submit_label: 'Submit' });
    expect(form.fields.map((f: any) => f.name)).toEqual(FIELDS.map((f) => f.name));

    const res = await post(
      token,
      JSON.stringify({
        name: ' Grace ',
        email: 'grace@example.com',
        seats: '12',
        plan: 'Team',
        consent: true,
        sneaky: 'dropped',
      }),
    );
    expect(res.status).toBe(202);
    const { execution_id: executionId } = (await res.json()) as any;
    const done = await h.waitForExecution(org.key, executionId);
    expect(done.status).toBe('success');
    expect(done.trigger).toBe('form');
    expect(done.trigger_payload).toEqual({
      name: 'Grace',
      email: 'grace@example.com',
      seats: 12,
      plan: 'Team',
      notes: '',
      consent: true,
    });
    expect(done.steps[0].output).toEqual({ who: 'Grace' });
  });

  it('takes an HTML form post, and answers bad answers with 422 naming each field', async () => {
    const token = tokenOf(await formWorkflow());
    const encoded = await post(
      token,
      'name=Ada&email=ada%40example.com&plan=Business&consent=on&notes=Hello%0Athere',
      'application/x-www-form-urlencoded',
    );
    expect(encoded.status).toBe(202);

    const bad = await post(token, JSON.stringify({ email: 'nope', seats: 'many', plan: 'Gold' }));
    expect(bad.status).toBe(422);
    const { error } = (await bad.json()) as any;
    expect(error.code).toBe('validation_error');
    expect(Object.keys(error.fields).sort()).toEqual(['consent', 'email', 'name', 'plan', 'seats']);
    expect(error.fields.name).toEqual(['Your name is required.']);
    expect((await post(token, '[1]')).status).toBe(422);
    expect((await post(token, 'x', 'text/plain')).status).toBe(422);
    // A malformed form post (no boundary; a body that is not multipart) is the sender's 422, not a 500.
    for (const type of ['multipart/form-data', 'multipart/form-data; boundary=xyz']) {
      const malformed = await post(token, 'not multipart at all', type);
      expect(malformed.status, type).toBe(422);
      expect(((await malformed.json()) as any).error).toMatchObject({
        code: 'validation_error',
        fields: { body: ['Malformed form body'] },
      });
    }
  });

  it('answers 404 for an unknown token, a hook token at the form door and a form token at the hook door', async () => {
    const form = tokenOf(await formWorkflow());
    expect((await h.app.request('/api/forms/not-a-token')).status).toBe(404);
    expect((await post('A'.repeat(43), '{}')).status).toBe(404);
    const hooked = await call('POST', '/workflows', {
      name: 'hooked',
      trigger_type: 'webhook',
      status: 'active',
      nodes: [],
      edges: [],
    });
    const hookToken = new URL(hooked.body.webhook_url).pathname.split('/').pop() as string;
    expect((await post(hookToken, '{}')).status).toBe(404);
    const atHook = await h.app.request(`/api/hooks/${form}`, { method: 'POST', body: '{}' });
    expect(atHook.status).toBe(404);
  });

  it('a switched-off form takes nothing (409); its page says so', async () => {
    const token = tokenOf(await formWorkflow({}, 'inactive'));
    expect(((await (await h.app.request(`/api/forms/${token}`)).json()) as any).open).toBe(false);
    const res = await post(
      token,
      JSON.stringify({ name: 'x', email: 'x@example.com', plan: 'Team', consent: true }),
    );
    expect(res.status).toBe(409);
  });

  it('asks for the captcha when the form wants it, and limits each form per minute', async () => {
    const token = tokenOf(await formWorkflow({ captcha: true }));
    const form = (await (await h.app.request(`/api/forms/${token}`)).json()) as any;
    expect(form.captcha).toMatchObject({ provider: 'hcaptcha', site_key: 'site-key' });
    const answers = { name: 'x', email: 'x@example.com', plan: 'Team', consent: true };
    const robot = await post(token, JSON.stringify({ ...answers, captcha_token: 'robot' }));
    expect(robot.status).toBe(422);
    expect(((await robot.json()) as any).error.fields.captcha_token).toBeDefined();
    expect((await post(token, JSON.stringify({ ...answers, captcha_token: 'human' }))).status).toBe(202);
    // 3 requests so far this minute; the limit counts page loads and submissions alike.
    const statuses: number[] = [];
    for (let i = 0; i < RATE; i++) statuses.push((await h.app.request(`/api/forms/${token}`)).status);
    expect(statuses).toContain(429);
    const limited = await h.app.request(`/api/forms/${token}`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
