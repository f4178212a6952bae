import { withTenant } from '@weft/db';
import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../src/organizations/create';
import { recordWebhookEvent } from '../src/webhooks/outbox';

/** The webhook outbox (webhooks/outbox.ts) on a real PostgreSQL, as the runtime role. */
let t: TestDatabase;
let org: string;

beforeAll(async () => {
  t = await createTestDatabase();
  org = (await createOrganization(t.app.db, { name: 'Outbox' })).id;
}, 60_000);
afterAll(() => t?.drop());

/** Resolves once a session of the runtime role waits for a row lock. */
async function someoneWaitsForALock(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [row] = await t.admin`
      select count(*)::int as n from pg_stat_activity
      where usename = 'weft_app' and wait_event_type = 'Lock'`;
    if ((row?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no session waited for a lock');
}

describe('webhook outbox', () => {
  it('records nothing for a webhook deleted while the event is being recorded (no foreign-key error)', async () => {
    // Without a lock the delivery row names a webhook deleted meanwhile: a foreign-key error (23503)
    // fails the workflow change with a 500 (the likely cause of a contract fuzz finding).
    const [webhook] = await t.admin`
      insert into webhooks (id, organization_id, url, events, secret_ciphertext)
      values (gen_random_uuid(), ${org}, 'https://hooks.example.com/w', ${t.admin.json(['workflow.deleted'])}, 'sealed')
      returning id`;
    let commitDelete = () => {};
    const deleting = t.admin.begin(async (tx) => {
      await tx`delete from webhooks where id = ${webhook?.id}`;
      await new Promise<void>((resolve) => {
        commitDelete = resolve;
      });
    });
    // Let the delete take its row lock first.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const recording = withTenant(t.app.db, org, (tx) =>
      recordWebhookEvent(tx, org, {
        name: 'workflow.deleted',
        dedupKey: 'workflow.deleted:race',
        data: async () => ({ workflow: { id: 'race' } }),
      }),
    );
    await someoneWaitsForALock();
    commitDelete();
    await deleting;
    expect(await recording).toEqual([]);
    const [row] =
      await t.admin`select count(*)::int as n from webhook_deliveries where organization_id = ${org}`;
    expect(row?.n).toBe(0);
  });
});
