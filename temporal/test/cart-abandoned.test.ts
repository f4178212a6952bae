import { cartWatcherWorkflowId } from '@weft/domain';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CART_EVENTS_PER_RUN } from '../workflows/cart-watcher';

// cart.abandoned on the time-skipping server: an hour of inactivity passes in a moment. Time is
// global to the server, so these tests run one after the other on one harness.

const MINUTE = 60_000;

let h: EngineHarness;

interface Org {
  organizationId: string;
  key: string;
  /** The workflow triggered by cart.abandoned. */
  abandonedWorkflowId: string;
}

async function createOrgListening(name: string): Promise<Org> {
  const org = await h.createOrg(name);
  const res = await h.request('POST', '/api/v1/workflows', {
    key: org.key,
    body: {
      name: 'Win back abandoned carts',
      status: 'active',
      trigger_type: 'event',
      trigger_config: { event: 'cart.abandoned' },
      nodes: [
        {
          id: 'remind',
          type: 'action.transform',
          config: { assignments: [{ key: 'cart', value: '{{trigger.cart_id}}' }] },
        },
      ],
    },
  });
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return { ...org, abandonedWorkflowId: body.id };
}

async function publish(org: Org, event: string, payload: Record<string, unknown>) {
  const res = await h.request('POST', '/api/v1/events', { key: org.key, body: { event, payload } });
  expect(res.status, await res.clone().text()).toBe(202);
}

async function watcherHistory(org: Org, cartId: string) {
  const handle = h.client.workflow.getHandle(cartWatcherWorkflowId(org.organizationId, cartId));
  const { events } = await handle.fetchHistory();
  return {
    handle,
    timersStarted: (events ?? []).filter((e) => e.timerStartedEventAttributes).length,
    timersFired: (events ?? []).filter((e) => e.timerFiredEventAttributes).length,
  };
}

/** Polls bounded by this, not by a count of tries: a busy machine is slow, not broken. */
const WAIT_MS = 60_000;

/** Until the cart's watcher has started its `n`-th inactivity timer (time must not skip before that). */
async function waitForTimers(org: Org, cartId: string, n: number) {
  for (const deadline = Date.now() + WAIT_MS; Date.now() < deadline; ) {
    try {
      if ((await watcherHistory(org, cartId)).timersStarted >= n) return;
    } catch {
      // The watcher may not exist yet.
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the watcher of cart ${cartId} never started timer ${n}`);
}

/** Until the watcher has ended; returns its final status. */
async function waitForWatcherEnd(org: Org, cartId: string): Promise<string> {
  const handle = h.client.workflow.getHandle(cartWatcherWorkflowId(org.organizationId, cartId));
  for (const deadline = Date.now() + WAIT_MS; Date.now() < deadline; ) {
    const { status } = await handle.describe();
    if (status.name !== 'RUNNING') return status.name;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the watcher of cart ${cartId} is still running`);
}

async function abandonedExecutions(org: Org) {
  return h.db.admin<{ trigger: string; event: string; trigger_payload: Record<string, unknown> }[]>`
    select trigger, event, trigger_payload from executions
     where workflow_id = ${org.abandonedWorkflowId} order by id`;
}

beforeAll(async () => {
  h = await createEngineHarness({ timeSkipping: true });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('cart.abandoned', () => {
  it('cart.created then 60 quiet minutes: cart.abandoned runs with the last payload', async () => {
    const org = await createOrgListening('Quiet cart');
    await publish(org, 'cart.created', { cart_id: 'C-1', total: 10 });
    await waitForTimers(org, 'C-1', 1);

    await h.skipTime(59 * MINUTE);
    expect((await watcherHistory(org, 'C-1')).timersFired).toBe(0);
    expect(await abandonedExecutions(org)).toEqual([]);

    await h.skipTime(2 * MINUTE);
    expect(await waitForWatcherEnd(org, 'C-1')).toBe('COMPLETED');
    const runs = await abandonedExecutions(org);
    expect(runs).toEqual([
      { trigger: 'event', event: 'cart.abandoned', trigger_payload: { cart_id: 'C-1', total: 10 } },
    ]);
  });

  it('cart.updated at minute 50 pushes it to minute 110, with the updated payload', async () => {
    const org = await createOrgListening('Busy cart');
    await publish(org, 'cart.created', { cart_id: 'C-2', total: 10 });
    await waitForTimers(org, 'C-2', 1);
    await h.skipTime(50 * MINUTE);
    await publish(org, 'cart.updated', { cart_id: 'C-2', total: 25, items: 2 });
    await waitForTimers(org, 'C-2', 2);

    await h.skipTime(59 * MINUTE); // minute 109
    expect((await watcherHistory(org, 'C-2')).timersFired).toBe(0);
    expect(await abandonedExecutions(org)).toEqual([]);

    await h.skipTime(2 * MINUTE); // minute 111
    expect(await waitForWatcherEnd(org, 'C-2')).toBe('COMPLETED');
    const runs = await abandonedExecutions(org);
    expect(runs.map((r) => r.trigger_payload)).toEqual([{ cart_id: 'C-2', total: 25, items: 2 }]);
  });

  it('order.created with the same cart_id cancels the timer: nothing fires', async () => {
    const org = await createOrgListening('Bought');
    await publish(org, 'cart.created', { cart_id: 'C-3' });
    await waitForTimers(org, 'C-3', 1);
    await h.skipTime(10 * MINUTE);
    await publish(org, 'order.created', { order_id: 'O-1', cart_id: 'C-3' });
    expect(await waitForWatcherEnd(org, 'C-3')).toBe('COMPLETED');
    await h.skipTime(61 * MINUTE);
    expect(await abandonedExecutions(org)).toEqual([]);
  });

  it('uses the organization setting: 15 minutes after PUT /settings', async () => {
    const org = await createOrgListening('Impatient');
    const res = await h.request('PUT', '/api/v1/settings', {
      key: org.key,
      body: { cart_inactivity_minutes: 15 },
    });
    expect(res.status).toBe(200);
    await publish(org, 'cart.created', { cart_id: 'C-4' });
    await waitForTimers(org, 'C-4', 1);

    await h.skipTime(14 * MINUTE);
    expect((await watcherHistory(org, 'C-4')).timersFired).toBe(0);
    await h.skipTime(2 * MINUTE);
    expect(await waitForWatcherEnd(org, 'C-4')).toBe('COMPLETED');
    expect((await abandonedExecutions(org)).map((r) => r.trigger_payload)).toEqual([{ cart_id: 'C-4' }]);
  });

  it('two organizations with the same cart_id have independent timers', async () => {
    const a = await createOrgListening('Shop A');
    const b = await createOrgListening('Shop B');
    expect(cartWatcherWorkflowId(a.organizationId, 'shared')).not.toBe(
      cartWatcherWorkflowId(b.organizationId, 'shared'),
    );
    await publish(a, 'cart.created', { cart_id: 'shared', shop: 'A' });
    await publish(b, 'cart.created', { cart_id: 'shared', shop: 'B' });
    await waitForTimers(a, 'shared', 1);
    await waitForTimers(b, 'shared', 1);
    await publish(a, 'order.created', { cart_id: 'shared' });
    expect(await waitForWatcherEnd(a, 'shared')).toBe('COMPLETED');

    await h.skipTime(61 * MINUTE);
    expect(await waitForWatcherEnd(b, 'shared')).toBe('COMPLETED');
    expect(await abandonedExecutions(a)).toEqual([]);
    expect((await abandonedExecutions(b)).map((r) => r.trigger_payload)).toEqual([
      { cart_id: 'shared', shop: 'B' },
    ]);
  });

  it('events without a cart_id, and cart.abandoned itself, start no timer', async () => {
    const org = await createOrgListening('No ids');
    await publish(org, 'cart.created', { total: 5 });
    await publish(org, 'cart.abandoned', { cart_id: 'C-5' });
    // No wait: publishing signals-with-start a cart's watcher before it answers 202 (the busy-cart
    // test below describes one right after its publish), so a watcher would exist by now.
    await expect(
      h.client.workflow.getHandle(cartWatcherWorkflowId(org.organizationId, 'C-5')).describe(),
    ).rejects.toThrow(/not found/i);
  });

  it('a busy cart continues as new (bounded history) and still fires once, with the last payload', async () => {
    const org = await createOrgListening('Busy shop');
    const events = CART_EVENTS_PER_RUN + 5;
    await publish(org, 'cart.updated', { cart_id: 'C-6', n: 0 });
    const handle = h.client.workflow.getHandle(cartWatcherWorkflowId(org.organizationId, 'C-6'));
    const firstRunId = (await handle.describe()).runId;
    for (let n = 1; n < events; n++) await publish(org, 'cart.updated', { cart_id: 'C-6', n });
    // Until the watcher has continued as new (only the test's timeout bounds this).
    while ((await handle.describe()).runId === firstRunId) await new Promise((r) => setTimeout(r, 25));
    const { events: firstRun } = await h.client.workflow
      .getHandle(handle.workflowId, firstRunId)
      .fetchHistory();
    expect((firstRun ?? []).some((e) => e.workflowExecutionContinuedAsNewEventAttributes)).toBe(true);
    // At most six events per cart event (signal, timer cancelled and started, and the workflow task's
    // three when each signal gets a task of its own), plus the run's own start and continue-as-new.
    expect((firstRun ?? []).length).toBeLessThan(CART_EVENTS_PER_RUN * 6 + 20);

    const { events: current } = await handle.fetchHistory();
    const timersInRun = (current ?? []).filter((e) => e.timerStartedEventAttributes).length;
    await waitForTimers(org, 'C-6', timersInRun);
    await h.skipTime(61 * MINUTE);
    expect(await waitForWatcherEnd(org, 'C-6')).toBe('COMPLETED');
    expect((await abandonedExecutions(org)).map((r) => r.trigger_payload)).toEqual([
      { cart_id: 'C-6', n: events - 1 },
    ]);
  }, 120_000);

  it('a cart id is never put raw into the workflow id', () => {
    const id = cartWatcherWorkflowId('0190b6a4-1111-7222-8333-444455556666', `evil/../${'x'.repeat(5000)}`);
    expect(id).toMatch(/^cart-0190b6a4-1111-7222-8333-444455556666-[0-9a-f]{32}$/);
  });
});
