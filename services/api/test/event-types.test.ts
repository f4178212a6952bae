import { EVENT_CATALOG } from '@weft/domain';
import { createEngineHarness, createOrgWithKey, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readJson } from './helpers';

// Publishing needs the engine, so this runs on the engine harness (Temporal dev server).

let h: EngineHarness;

beforeAll(async () => {
  h = await createEngineHarness();
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const SPEC_NAMES = [
  'lead.created',
  'order.created',
  'order.shipped',
  'order.delivered',
  'cart.abandoned',
  'payment.received',
  'invoice.created',
  'invoice.overdue',
  'ticket.created',
  'ticket.resolved',
  'shipment.status_changed',
  'chat.message_received',
  'webhook.received',
  'trigger.polling',
  'employee.hired',
  'error.critical',
  'scheduled.*',
];

describe('GET /event-types', () => {
  it("lists the spec's catalog with a category, a description and an example payload for each", async () => {
    const org = await h.createOrg('Catalog');
    const res = await h.request('GET', '/api/v1/event-types', { key: org.key });
    const body = await readJson(res);
    expect(res.status).toBe(200);
    expect(body.data.map((e: any) => e.name)).toEqual(SPEC_NAMES);
    for (const event of body.data) {
      expect(event.custom).toBe(false);
      expect(event.category).toMatch(/^[A-Z]/);
      expect(event.description.length).toBeGreaterThan(10);
      expect(typeof event.example_payload).toBe('object');
      expect(event.first_seen_at).toBeNull();
    }
    expect(body.data.find((e: any) => e.name === 'cart.abandoned').category).toBe('Cart');
    expect(body.data.find((e: any) => e.name === 'scheduled.*').category).toBe('Scheduled');
  });

  it("adds the organization's own event names after publishing, marked custom with first/last seen", async () => {
    const org = await h.createOrg('Custom events');
    const neighbour = await h.createOrg('Neighbour');
    for (const event of ['invoice.paid', 'invoice.paid', 'lead.created']) {
      const res = await h.request('POST', '/api/v1/events', { key: org.key, body: { event, payload: {} } });
      expect(res.status).toBe(202);
    }
    const body = await readJson(await h.request('GET', '/api/v1/event-types', { key: org.key }));
    const custom = body.data.filter((e: any) => e.custom);
    expect(custom).toEqual([
      expect.objectContaining({ name: 'invoice.paid', category: 'Invoice', description: null, custom: true }),
    ]);
    const paid = custom[0];
    expect(Date.parse(paid.first_seen_at)).toBeLessThanOrEqual(Date.parse(paid.last_seen_at));
    // A catalog event that was published shows when it was seen, and stays built-in.
    const lead = body.data.find((e: any) => e.name === 'lead.created');
    expect(lead.custom).toBe(false);
    expect(lead.last_seen_at).not.toBeNull();
    expect(body.data.length).toBe(EVENT_CATALOG.length + 1);

    const theirs = await readJson(await h.request('GET', '/api/v1/event-types', { key: neighbour.key }));
    expect(theirs.data.some((e: any) => e.custom)).toBe(false);
  });

  it('needs an API key (401) and workflows.view (403)', async () => {
    await expectError(await h.request('GET', '/api/v1/event-types'), 401, 'unauthenticated');
    const limited = await createOrgWithKey(h.db.app.db, 'Limited', ['events.publish']);
    await expectError(await h.request('GET', '/api/v1/event-types', { key: limited.key }), 403, 'forbidden');
  });
  it('moves last_seen_at at most once a minute, so concurrent publishes share no row lock', async () => {
    const org = await h.createOrg('Seen events');
    const publish = async () =>
      expect(
        (
          await h.request('POST', '/api/v1/events', {
            key: org.key,
            body: { event: 'ping.seen', payload: {} },
          })
        ).status,
      ).toBe(202);
    const seen = async () =>
      (
        await h.db.admin<{ first: Date; last: Date }[]>`
          select first_seen_at as first, last_seen_at as last from event_names
          where organization_id = ${org.organizationId} and name = 'ping.seen'`
      )[0];
    await publish();
    const first = await seen();
    await Promise.all(Array.from({ length: 8 }, publish));
    expect(await seen()).toEqual(first);
    // A minute later the next publish moves it.
    await h.db.admin`update event_names set last_seen_at = last_seen_at - interval '2 minutes'
                     where organization_id = ${org.organizationId} and name = 'ping.seen'`;
    const before = await seen();
    await publish();
    const after = await seen();
    expect(after?.first).toEqual(first?.first);
    expect(after?.last.getTime()).toBeGreaterThan((before?.last.getTime() ?? 0) + 60_000);
  });
});
