import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveInlineSecrets } from '../src/credentials/move-inline-secrets';
import { openCredential } from '../src/credentials/use';
import { createSecretBox } from '../src/encryption';
import { createOrganization } from '../src/organizations/create';
import { openHookSecret } from '../src/workflows/hook-secret';

/**
 * The data step of `weft migrate`: secrets that workflows saved before credentials existed hold in
 * clear move into credentials, once, and the workflows keep working with them.
 */

let t: TestDatabase;
const secrets = createSecretBox(randomBytes(32));
const BEARER = 'sk_live_inline_bearer_7777';
const API_KEY = 'inline-x-api-key-8888';
const POLL_KEY = 'inline-poll-key-9999';
const HOOK_SECRET = 'whsec_inline_hook_secret_0000';

async function insertWorkflow(
  organizationId: string,
  row: { name: string; trigger_type: string; trigger_config: unknown; nodes: unknown[] },
) {
  const [inserted] = await t.admin`
    insert into workflows (id, organization_id, name, trigger_type, trigger_config, status, nodes, edges)
    values (gen_random_uuid(), ${organizationId}, ${row.name}, ${row.trigger_type}, ${t.admin.json(row.trigger_config as never)},
            'active', ${t.admin.json(row.nodes as never)}, '[]'::jsonb)
    returning id`;
  return inserted?.id as string;
}

const workflowRow = async (id: string) =>
  (await t.admin`select trigger_config, nodes from workflows where id = ${id}`)[0] as {
    trigger_config: Record<string, unknown>;
    nodes: { id: string; config: Record<string, unknown> }[];
  };

let org: string;
let httpId: string;
let pollId: string;
let hookId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  org = (await createOrganization(t.app.db, { name: 'Legacy' })).id;
  httpId = await insertWorkflow(org, {
    name: 'Calls',
    trigger_type: 'manual',
    trigger_config: {},
    nodes: [
      {
        id: 'charge',
        type: 'action.http_request',
        config: {
          url: 'https://a.example/',
          headers: { Authorization: `Bearer ${BEARER}`, 'X-Api-Key': API_KEY },
        },
      },
      {
        id: 'dynamic',
        type: 'action.http_request',
        config: {
          url: 'https://b.example/',
          headers: { Authorization: 'Bearer {{nodes.login.body.token}}' },
        },
      },
    ],
  });
  pollId = await insertWorkflow(org, {
    name: 'Feed',
    trigger_type: 'polling',
    trigger_config: {
      url: 'https://c.example/feed',
      interval_minutes: 5,
      headers: { 'x-api-key': POLL_KEY, Accept: 'x/y' },
    },
    nodes: [],
  });
  hookId = await insertWorkflow(org, {
    name: 'Hooked',
    trigger_type: 'webhook',
    trigger_config: { secret: HOOK_SECRET },
    nodes: [],
  });
}, 60_000);
afterAll(() => t?.drop());

describe('moveInlineSecrets', () => {
  it('moves clear secrets into credentials the workflows then name, once', async () => {
    const report = await moveInlineSecrets(t.app.db, secrets);
    expect(report).toEqual({ workflows: 3, credentials: 2, hookSecrets: 1, leftInPlace: 1 });

    const http = await workflowRow(httpId);
    const charge = http.nodes[0]?.config as { headers: Record<string, string>; credential_id: string };
    // One credential_id per node: the second secret header stays, and is reported.
    expect(charge.headers).toEqual({ 'X-Api-Key': API_KEY });
    const bearer = await openCredential(t.app.db, secrets, {
      organizationId: org,
      credentialId: charge.credential_id,
      allowedTypes: ['http_bearer'],
    });
    expect(bearer).toMatchObject({
      type: 'http_bearer',
      fields: { token: BEARER },
      name: 'Calls · charge · Authorization',
    });
    // A value computed per run is not a stored secret: untouched.
    expect(http.nodes[1]?.config).toEqual({
      url: 'https://b.example/',
      headers: { Authorization: 'Bearer {{nodes.login.body.token}}' },
    });

    const poll = await workflowRow(pollId);
    expect(poll.trigger_config.headers).toEqual({ Accept: 'x/y' });
    const pollCredential = await openCredential(t.app.db, secrets, {
      organizationId: org,
      credentialId: poll.trigger_config.credential_id as string,
      allowedTypes: ['http_header'],
    });
    expect(pollCredential.fields).toEqual({ name: 'x-api-key', value: POLL_KEY });

    const hook = await workflowRow(hookId);
    expect(JSON.stringify(hook)).not.toContain(HOOK_SECRET);
    expect(openHookSecret(hook.trigger_config, secrets)).toBe(HOOK_SECRET);

    const stored = JSON.stringify(await t.admin`select * from credentials`);
    for (const secret of [BEARER, POLL_KEY]) expect(stored).not.toContain(secret);
    const audit = JSON.stringify(await t.admin`select old_values, new_values from audit_logs`);
    for (const secret of [BEARER, POLL_KEY, HOOK_SECRET]) expect(audit).not.toContain(secret);

    // Nothing left to move (the header left in place was reported by the first run).
    expect(await moveInlineSecrets(t.app.db, secrets)).toEqual({
      workflows: 0,
      credentials: 0,
      hookSecrets: 0,
      leftInPlace: 0,
    });
  });
});
