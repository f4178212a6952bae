import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readJson, validWorkflow } from './helpers';

/** The document says what the server enforces (issue 14); the fuzz run is contract-fuzz.test.ts. */

let api: TestApi;
let key: string;
/** The complete document (the web app's); the API clients' default is the same with fewer alternatives. */
let doc: any;
let apiDoc: any;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

beforeAll(async () => {
  api = await createTestApi();
  key = (await api.createOrg('Contract')).key;
  doc = await readJson(await api.request('GET', '/api/v1/openapi.json?audience=web'));
  apiDoc = await readJson(await api.request('GET', '/api/v1/openapi.json'));
});
afterAll(() => api.close());

const operations = (document = doc) =>
  Object.entries(document.paths as Record<string, any>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })),
  );

describe('the OpenAPI document', () => {
  it('names every operation with a unique camelCase operationId', () => {
    const ids = operations().map(({ op }) => op.operationId);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]+$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('documents the shared error statuses, each with the one error envelope', () => {
    for (const { path, method, op } of operations()) {
      const name = `${method} ${path}`;
      if (op.security?.length)
        for (const s of ['401', '403', '429']) expect(op.responses[s], name).toBeDefined();
      if (op.parameters?.length || ['post', 'put', 'patch'].includes(method)) {
        expect(op.responses['422'], name).toBeDefined();
      }
      if (['post', 'put', 'patch'].includes(method)) expect(op.responses['413'], name).toBeDefined();
      if (path.includes('{')) expect(op.responses['404'], name).toBeDefined();
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (Number(status) >= 400) {
          expect(response.content['application/json'].schema, `${name} ${status}`).toEqual({
            $ref: '#/components/schemas/Error',
          });
        }
      }
    }
  });

  it('gives trigger types, node types, the event name and Idempotency-Key their rules', () => {
    const body = doc.paths['/workflows'].post.requestBody.content['application/json'].schema;
    expect(body.properties.trigger_type.enum).toEqual(expect.arrayContaining(['event', 'trigger.polling']));
    expect(body.properties.nodes.items.properties.type.enum).toEqual(
      expect.arrayContaining(['action.http_request', 'email_send']),
    );
    expect(body.properties.name).toMatchObject({ minLength: 1, maxLength: 200 });
    const event = doc.paths['/events'].post.requestBody.content['application/json'].schema;
    expect(event.properties.event.pattern).toBe('^[a-z0-9_]+(\\.[a-z0-9_]+)+$');
    const header = doc.paths['/workflows'].post.parameters.find((p: any) => p.name === 'idempotency-key');
    expect(header.schema.pattern).toBeDefined();
  });
});

describe('rules that depend on another field', () => {
  const CONFIGS: Record<string, Record<string, unknown>> = {
    event: { event: 'order.created' },
    manual: {},
    schedule: { cron: '0 8 * * MON-FRI', timezone: 'Europe/Berlin' },
    polling: { url: 'https://shop.example.com/orders', interval_minutes: 5 },
    webhook: { secret: 'sixteen-chars-at-least' },
    chat: {},
    tool: { name: 'lookup_order', description: 'Looks an order up', input_schema: { type: 'object' } },
  };
  const body = () => doc.paths['/workflows'].post.requestBody.content['application/json'].schema;

  it('pairs each trigger type with its config schema, and the server agrees with each pair', async () => {
    const branches = body().oneOf as any[];
    expect(branches.map((b) => b.properties.trigger_type.enum[0])).toEqual(Object.keys(CONFIGS));
    const schedule = branches.find((b) => b.properties.trigger_type.enum.includes('schedule'));
    const cron = new RegExp(schedule.properties.trigger_config.properties.cron.pattern);
    expect(cron.test('0 8 * * MON-FRI')).toBe(true);
    expect(cron.test('61 8 * * *')).toBe(false);
    expect(schedule.properties.trigger_config.properties.timezone.$ref).toBe('#/components/schemas/TimeZone');
    expect(doc.components.schemas.TimeZone.enum).toContain('Europe/Berlin');
    for (const [type, config] of Object.entries(CONFIGS)) {
      const res = await api.request('POST', '/api/v1/workflows', {
        key,
        body: { name: `trigger ${type}`, trigger_type: type, trigger_config: config },
      });
      expect(res.status, type).toBe(201);
    }
    // Another type's config: refused by the server, as the document's branches refuse it.
    const mixed = await api.request('POST', '/api/v1/workflows', {
      key,
      body: { name: 'mixed', trigger_type: 'schedule', trigger_config: CONFIGS.event },
    });
    await expectError(mixed, 422, 'validation_error');
  });

  it('constrains keys and free-form values of bodies as the JSON-body middleware does', async () => {
    // Free-form values are any JSON: not a recursive schema, which client generators cannot read
    // (openapi-python-client drops every operation using one); the server refuses NUL at any depth.
    expect(doc.components.schemas.JsonValue).toEqual({ description: expect.stringMatching(/NUL/) });
    const execute = doc.paths['/workflows/{id}/execute'].post.requestBody.content['application/json'].schema;
    expect(execute.properties.input.additionalProperties.$ref).toBe('#/components/schemas/JsonValue');
    expect(execute.properties.input.propertyNames.pattern).toBe('^[^\\u0000]*$');
    for (const trigger_config of [{ 'bad\u0000key': 1 }, { deep: [{ list: ['nul \u0000 inside'] }] }]) {
      const res = await api.request('POST', '/api/v1/workflows', {
        key,
        body: { ...validWorkflow, trigger_config },
      });
      await expectError(res, 422, 'validation_error');
    }
  });

  it('offers credentials as alternatives, each complete: an API key, or a session with its CSRF token on writes', () => {
    for (const { path, method, op } of operations()) {
      const name = `${method} ${path}`;
      expect(op.security, name).toBeDefined();
      for (const requirement of op.security) {
        const schemes = Object.keys(requirement).sort();
        if (schemes.includes('Session')) {
          expect(schemes, name).toEqual(method === 'get' ? ['Session'] : ['Csrf', 'Session']);
        } else {
          expect([['ApiKey'], ['Bearer']], name).toContainEqual(schemes);
        }
      }
    }
    const security = (path: string, method: string) => doc.paths[path][method].security;
    expect(security('/workflows', 'post')).toEqual([
      { ApiKey: [] },
      { Bearer: [] },
      { Session: [], Csrf: [] },
    ]);
    expect(security('/workflows', 'get')).toEqual([{ ApiKey: [] }, { Bearer: [] }, { Session: [] }]);
    // Signing in takes no credentials; its second step, the half-signed-in session and its token.
    expect(security('/auth/login', 'post')).toEqual([]);
    expect(security('/auth/config', 'get')).toEqual([]);
    expect(security('/auth/login/two-factor', 'post')).toEqual([{ Session: [], Csrf: [] }]);
    expect(doc.components.securitySchemes.Csrf).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-CSRF-Token',
    });
  });

  it('offers API clients (the default document) the key as Bearer only, or no credentials', () => {
    const requirements = new Set(operations(apiDoc).map(({ op }) => JSON.stringify(op.security)));
    expect([...requirements].sort()).toEqual(['[]', '[{"Bearer":[]}]']);
    // Each of its operations is the web document's, with the same shared error responses.
    for (const { path, method, op } of operations(apiDoc)) {
      expect(Object.keys(op.responses), `${method} ${path}`).toEqual(
        Object.keys(doc.paths[path][method].responses),
      );
    }
  });

  it('gives e-mail fields the pattern the server checks them with', () => {
    const user = doc.paths['/invitations'].post.requestBody.content['application/json'].schema;
    const email = new RegExp(user.properties.email.pattern);
    expect(email.test('ada@example.com')).toBe(true);
    expect(email.test('"quoted"@example.com')).toBe(false);
  });
});

describe('requests outside the contract', () => {
  it('answers a known path with an unknown method 405 and Allow, in the error envelope', async () => {
    const res = await api.request('DELETE', '/api/v1/event-types', { key });
    expect(res.headers.get('Allow')).toBe('GET, HEAD');
    await expectError(res, 405, 'method_not_allowed');
    const byId = await api.request('PATCH', '/api/v1/workflows/00000000-0000-4000-8000-000000000000', {
      key,
    });
    expect(byId.headers.get('Allow')).toBe('DELETE, GET, HEAD, PUT');
    await expectError(byId, 405, 'method_not_allowed');
  });

  it('lists only the most specific path in Allow', async () => {
    const res = await api.request('GET', '/api/v1/me/sessions/end-all', { key });
    expect(res.headers.get('Allow')).toBe('POST');
  });

  it('treats a fixed path as its own route, not as the id of a wider one', async () => {
    // DELETE /me/sessions/{id} exists; `end-all` is a route of its own with POST only.
    const res = await api.request('DELETE', '/api/v1/me/sessions/end-all', { key });
    expect(res.headers.get('Allow')).toBe('POST');
    await expectError(res, 405, 'method_not_allowed');
    // A real id still reaches the wider route (404: no such session), and OPTIONS stays with CORS.
    const other = await api.request('DELETE', '/api/v1/me/sessions/00000000-0000-4000-8000-000000000000', {
      key,
    });
    expect(other.status).not.toBe(405);
  });

  it('still answers an unknown path 404', async () => {
    await expectError(await api.request('GET', '/api/v1/no-such-thing', { key }), 404, 'not_found');
  });

  it('refuses a body that is not UTF-8 with 422 instead of storing U+FFFD', async () => {
    const json = JSON.stringify({ ...validWorkflow, name: 'caf\u00e9' });
    const bytes = new TextEncoder().encode(json);
    const at = bytes.indexOf(0xc3);
    const broken = new Uint8Array([...bytes.slice(0, at), 0xff, ...bytes.slice(at + 2)]);
    const res = await api.app.request('/api/v1/workflows', {
      method: 'POST',
      headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' },
      body: broken,
    });
    const body = await expectError(res, 422, 'validation_error');
    expect(body.error.fields.body).toEqual(['must be UTF-8 text']);
  });
});
