import { NODE_TYPES } from '@weft/nodes';
import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readJson } from './helpers';

/** The registry is the list: a type added there is served here without touching this file. */
const TYPES = NODE_TYPES.map((d) => d.type);

let api: TestApi;
let acme: { organizationId: string; key: string };
let types: any[];

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
  const res = await api.request('GET', '/api/v1/node-types', { key: acme.key });
  expect(res.status).toBe(200);
  types = (await readJson(res)).data;
});
afterAll(() => api.close());

describe('GET /node-types', () => {
  it('lists exactly the registered node types, each once', () => {
    expect(types).toHaveLength(TYPES.length);
    expect(types.map((t) => t.type).sort()).toEqual([...TYPES].sort());
  });

  it('describes each with type, name, category, description, icon, version, schemas, ports and older versions', () => {
    for (const t of types) {
      expect(Object.keys(t).sort(), t.type).toEqual(
        [
          'category',
          'config_schema',
          'description',
          'icon',
          'name',
          'output_schema',
          'ports',
          'previous_versions',
          'reuses_recording',
          'type',
          'version',
        ].sort(),
      );
      expect(t.version, t.type).toBeGreaterThanOrEqual(1);
      expect(t.previous_versions, t.type).toEqual(expect.any(Array));
      expect(t.name, t.type).toMatch(/\S/);
      expect(t.category, t.type).toMatch(/^[a-z]+$/);
      // Every built-in type names its own icon; `box` is the fallback for a type that names none.
      expect(t.icon, t.type).not.toBe('box');
      expect(t.description.length, t.type).toBeGreaterThan(10);
      expect(t.ports, t.type).toBeTypeOf('object');
      expect(t.ports.inputs, t.type).toEqual(expect.any(Array));
      expect(t.ports.outputs, t.type).toBeDefined();
    }
  });

  it('says which types a replay reuses from the recording: those that call out or wait, not computed ones', () => {
    const reuses = (type: string) => types.find((t) => t.type === type)?.reuses_recording;
    expect(
      ['action.http_request', 'action.email.send', 'action.ai.prompt', 'action.delay'].map(reuses),
    ).toEqual([true, true, true, true]);
    expect(['action.transform', 'action.condition', 'action.code'].map(reuses)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('gives each config_schema as a JSON Schema object with properties', () => {
    for (const t of types) {
      // An object schema, or a union (anyOf/oneOf) of object schemas (e.g. delay: {duration} | {until}).
      const variants = t.config_schema.anyOf ?? t.config_schema.oneOf ?? [t.config_schema];
      expect(variants.length, t.type).toBeGreaterThan(0);
      for (const v of variants) {
        expect(v.type, t.type).toBe('object');
        expect(v.properties, t.type).toBeTypeOf('object');
        expect(Object.keys(v.properties).length, t.type).toBeGreaterThan(0);
      }
      expect(t.output_schema, t.type).toBeTypeOf('object');
      // Round-trips as JSON (no functions, no undefined).
      expect(JSON.parse(JSON.stringify(t.config_schema))).toEqual(t.config_schema);
    }
  });

  it('matches what workflow validation accepts (http_request needs url; condition has true/false outputs)', () => {
    const http = types.find((t) => t.type === 'action.http_request');
    expect(http.config_schema.required).toContain('url');
    expect(http.config_schema.properties.method.enum).toEqual(expect.arrayContaining(['GET', 'POST']));
    const condition = types.find((t) => t.type === 'action.condition');
    expect(condition.ports.outputs).toEqual(expect.arrayContaining(['true', 'false']));
    const loop = types.find((t) => t.type === 'action.loop');
    expect(loop.ports.outputs).toEqual(expect.arrayContaining(['each', 'done']));
    const delay = types.find((t) => t.type === 'action.delay');
    expect(JSON.stringify(delay.config_schema)).toContain('duration');
  });

  it('needs a key (401) but no particular permission', async () => {
    await expectError(await api.request('GET', '/api/v1/node-types'), 401, 'unauthenticated');
    const narrow = await api.keyFor(acme.organizationId, ['audit.view']);
    expect((await api.request('GET', '/api/v1/node-types', { key: narrow })).status).toBe(200);
  });
});
