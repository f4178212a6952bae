import { triggerScheduleId } from '@weft/temporal/schedules';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createStack, createWorkflow, type Stack, sleep, transform } from './support';

let stack: Stack;

beforeAll(async () => {
  stack = await createStack();
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

it('a starting worker process recreates a schedule that went missing', async () => {
  const { key } = await stack.createOrg();
  const workflowId = await createWorkflow(stack, key, {
    name: 'daily',
    trigger_type: 'schedule',
    trigger_config: { cron: '0 8 * * *' },
    nodes: [transform('n', { at: '{{trigger.scheduled_at}}' })],
  });
  const handle = stack.client.schedule.getHandle(triggerScheduleId('schedule', workflowId));
  await handle.delete();
  await expect(handle.describe()).rejects.toThrow();
  // Schedule listing is eventually consistent: wait until it no longer lists the deleted one.
  for (let listed = true; listed; await sleep(100)) {
    listed = false;
    for await (const s of stack.client.schedule.list()) listed ||= s.scheduleId === handle.scheduleId;
  }

  const worker = await stack.startWorker();
  const deadline = Date.now() + 30_000;
  // The worker's JSON log line: {"created":1,…,"msg":"trigger schedules reconciled"}.
  while (!/"created":1,.*"msg":"trigger schedules reconciled"/.test(worker.output())) {
    if (Date.now() > deadline) throw new Error(`no reconcile report:\n${worker.output().slice(-3000)}`);
    await sleep(100);
  }
  expect((await handle.describe()).state.paused).toBe(false);
});
