import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Every save keeps a version (issue 12 "Version history"): who saved it and the whole definition,
// secrets masked, readable only inside the organization.

let api: TestApi;
let acme: { organizationId: string; key: string; apiKeyId: string };

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
});
afterAll(() => api?.close());

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });

describe('workflow versions', () => {
  it('keeps each saved version with who saved it; the hook secret is never in history', async () => {
    const base = {
      trigger_type: 'webhook',
      trigger_config: { secret: 'a-very-secret-hook-key' },
      nodes: [{ id: 'a', type: 'action.transform', config: { assignments: [{ key: 'k', value: 'v1' }] } }],
    };
    const created = await json(
      await api.request('POST', '/api/v1/workflows', {
        key: acme.key,
        body: { name: 'first name', ...base },
      }),
    );
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    for (const [name, value] of [
      ['second name', 'v2'],
      ['third name', 'v3'],
    ]) {
      const res = await api.request('PUT', `/api/v1/workflows/${id}`, {
        key: acme.key,
        body: {
          ...base,
          name,
          nodes: [{ id: 'a', type: 'action.transform', config: { assignments: [{ key: 'k', value }] } }],
        },
      });
      expect(res.status).toBe(200);
    }
    const list = await json(await api.request('GET', `/api/v1/workflows/${id}/versions`, { key: acme.key }));
    expect(list.body.data.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect(list.body.data[0].saved_by_api_key_id).toBe(acme.apiKeyId);
    expect(list.body.meta.total).toBe(3);

    const first = await json(
      await api.request('GET', `/api/v1/workflows/${id}/versions/1`, { key: acme.key }),
    );
    expect(first.body.definition).toMatchObject({ name: 'first name', trigger_type: 'webhook' });
    expect(first.body.definition.nodes[0].config.assignments[0].value).toBe('v1');
    const stored = await api.db
      .admin`select snapshot::text as s from workflow_versions where workflow_id = ${id}`;
    for (const row of stored) expect(row.s).not.toContain('a-very-secret-hook-key');

    expect((await api.request('GET', `/api/v1/workflows/${id}/versions/9`, { key: acme.key })).status).toBe(
      404,
    );
    expect(
      (await api.request('GET', `/api/v1/workflows/${id}/versions/zero`, { key: acme.key })).status,
    ).toBe(422);
    const other = await api.createOrg('Globex');
    expect((await api.request('GET', `/api/v1/workflows/${id}/versions`, { key: other.key })).status).toBe(
      404,
    );
    expect((await api.request('GET', `/api/v1/workflows/${id}/versions/1`, { key: other.key })).status).toBe(
      404,
    );
  });

  it('a refused save records no version', async () => {
    const created = await json(
      await api.request('POST', '/api/v1/workflows', {
        key: acme.key,
        body: { name: 'stable', trigger_type: 'manual' },
      }),
    );
    const id = created.body.id as string;
    const bad = await api.request('PUT', `/api/v1/workflows/${id}`, {
      key: acme.key,
      body: { name: 'broken', trigger_type: 'manual', nodes: [{ id: 'x', type: 'action.nope' }] },
    });
    expect(bad.status).toBe(422);
    const list = await json(await api.request('GET', `/api/v1/workflows/${id}/versions`, { key: acme.key }));
    expect(list.body.meta.total).toBe(1);
  });

  it('If-Match: a save based on an older version is a 409 and changes nothing; the current one saves', async () => {
    const created = await json(
      await api.request('POST', '/api/v1/workflows', {
        key: acme.key,
        body: { name: 'shared', trigger_type: 'manual' },
      }),
    );
    const id = created.body.id as string;
    const save = (name: string, ifMatch: string) =>
      api.request('PUT', `/api/v1/workflows/${id}`, {
        key: acme.key,
        headers: { 'If-Match': ifMatch },
        body: { name, trigger_type: 'manual' },
      });
    const tabA = await json(await save('from tab A', '"1"'));
    expect(tabA.status).toBe(200);
    expect(tabA.body.version).toBe(2);
    const tabB = await json(await save('from tab B', '1'));
    expect(tabB.status).toBe(409);
    expect(tabB.body.error.code).toBe('conflict');
    expect(tabB.body.error.message).toMatch(/latest is 2/);
    const now = await json(await api.request('GET', `/api/v1/workflows/${id}`, { key: acme.key }));
    expect(now.body).toMatchObject({ name: 'from tab A', version: 2 });
    expect((await save('tab B overwrites', '2')).status).toBe(200);
    expect((await save('junk', 'abc')).status).toBe(422);
  });

  it('sticky notes: saved with the workflow, kept by a PUT that leaves them out, checked like any field', async () => {
    const notes = [{ id: 'why', text: 'Explains the branch', position: { x: 10, y: 20 }, color: 'green' }];
    const created = await json(
      await api.request('POST', '/api/v1/workflows', {
        key: acme.key,
        body: { name: 'with notes', trigger_type: 'manual', notes },
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body.notes).toEqual(notes);
    const id = created.body.id as string;
    const kept = await json(
      await api.request('PUT', `/api/v1/workflows/${id}`, {
        key: acme.key,
        body: { name: 'renamed', trigger_type: 'manual' },
      }),
    );
    expect(kept.body.notes).toEqual(notes);
    const bad = async (badNotes: unknown[]) =>
      json(
        await api.request('PUT', `/api/v1/workflows/${id}`, {
          key: acme.key,
          body: { name: 'x', trigger_type: 'manual', notes: badNotes },
        }),
      );
    const malformed = await bad([notes[0], { id: 'n/2', text: 1, position: {} }]);
    expect(malformed.status).toBe(422);
    expect(Object.keys(malformed.body.error.fields)).toEqual(
      expect.arrayContaining(['notes.1.id', 'notes.1.text', 'notes.1.position.x']),
    );
    const twice = await bad([notes[0], notes[0]]);
    expect(twice.status).toBe(422);
    expect(twice.body.error.fields['notes.1.id']).toEqual(['duplicate note id "why"']);
    const cleared = await json(
      await api.request('PUT', `/api/v1/workflows/${id}`, {
        key: acme.key,
        body: { name: 'renamed', trigger_type: 'manual', notes: [] },
      }),
    );
    expect(cleared.body.notes).toEqual([]);
  });
});
