import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../src/organizations/create';
import {
  claimOutboxMessage,
  completeOutboxMessage,
  recordDeliveryStatus,
  releaseOutboxMessage,
} from '../src/outbox/message-outbox';

/** The message outbox (DESIGN §12.1) on a real PostgreSQL, as the runtime role. */
let t: TestDatabase;
let org: string;
let other: string;

beforeAll(async () => {
  t = await createTestDatabase();
  org = (await createOrganization(t.app.db, { name: 'Sender' })).id;
  other = (await createOrganization(t.app.db, { name: 'Other' })).id;
}, 60_000);
afterAll(() => t?.drop());

describe('message outbox', () => {
  it('claims once; a retry after completion gets the stored result; one that died mid-send gets unknown', async () => {
    const ref = { organizationId: org, stepKey: 'exec-1:mail' };
    expect(await claimOutboxMessage(t.app.db, { ...ref, channel: 'email' })).toEqual({ state: 'claimed' });
    // An attempt that dies before completing leaves `sending`: never send again.
    expect(await claimOutboxMessage(t.app.db, { ...ref, channel: 'email' })).toEqual({ state: 'unknown' });
    await completeOutboxMessage(t.app.db, ref, { message_id: '<m1@weft>', accepted: ['a@example.com'] });
    expect(await claimOutboxMessage(t.app.db, { ...ref, channel: 'email' })).toEqual({
      state: 'sent',
      result: { message_id: '<m1@weft>', accepted: ['a@example.com'] },
    });
  });

  it('a release (refused before the provider took it) lets the next attempt claim again', async () => {
    const ref = { organizationId: org, stepKey: 'exec-2:mail:3' };
    expect(await claimOutboxMessage(t.app.db, { ...ref, channel: 'chat' })).toEqual({ state: 'claimed' });
    await releaseOutboxMessage(t.app.db, ref, 'HTTP 429 from the provider');
    expect(await claimOutboxMessage(t.app.db, { ...ref, channel: 'chat' })).toEqual({ state: 'claimed' });
  });

  it('concurrent claims of one step: exactly one wins', async () => {
    const ref = { organizationId: org, stepKey: 'exec-3:mail', channel: 'email' as const };
    const claims = await Promise.all(Array.from({ length: 8 }, () => claimOutboxMessage(t.app.db, ref)));
    expect(claims.filter((c) => c.state === 'claimed')).toHaveLength(1);
  });

  it('step keys are per organization (RLS): another organization claims its own', async () => {
    const stepKey = 'exec-4:mail';
    expect(await claimOutboxMessage(t.app.db, { organizationId: org, stepKey, channel: 'email' })).toEqual({
      state: 'claimed',
    });
    expect(await claimOutboxMessage(t.app.db, { organizationId: other, stepKey, channel: 'email' })).toEqual({
      state: 'claimed',
    });
  });

  it('status callbacks keep the furthest delivery state, whatever order they arrive in', async () => {
    const ref = { organizationId: org, stepKey: 'exec-5:chat' };
    await claimOutboxMessage(t.app.db, { ...ref, channel: 'chat' });
    await completeOutboxMessage(t.app.db, ref, { message_id: 'wamid.S1', sent_as: 'text' });
    const status = (s: string, error?: string) =>
      recordDeliveryStatus(t.app.db, {
        organizationId: org,
        providerMessageId: 'wamid.S1',
        status: s,
        error,
      });
    expect(await status('read')).toBe(true);
    expect(await status('delivered')).toBe(false); // late: read is further
    expect(await status('sent')).toBe(false);
    expect(await status('failed', '131047 Re-engagement message')).toBe(true);
    expect(await status('bounced')).toBe(false);
    expect(
      await recordDeliveryStatus(t.app.db, {
        organizationId: other,
        providerMessageId: 'wamid.S1',
        status: 'read',
      }),
    ).toBe(false);
    const [row] =
      await t.admin`select delivery_status, delivery_error, result from message_outbox where step_key = 'exec-5:chat'`;
    expect(row).toMatchObject({ delivery_status: 'failed', delivery_error: '131047 Re-engagement message' });
  });
});
