import { defineWorkflowNode } from '../workflow-node';

interface RenderedLoopConfig {
  items: unknown;
  mode: 'sequential' | 'parallel';
  concurrency: number;
  max_items: number;
}

const LOOP_CHECKPOINT_EVERY = 200;

/**
 * action.loop: checks the items, then walks the body once per item, one after another or in
 * `concurrency` lanes. Fires `done` with every iteration's last output.
 */
export const loopWorkflow = defineWorkflowNode({
  type: 'action.loop',
  runsIn: 'workflow',
  handleOf: () => 'done',
  disabledHandle: 'done',
  loop: true,
  async execute(rawConfig, ctx) {
    const config = rawConfig as unknown as RenderedLoopConfig;
    const items = config.items;
    if (!Array.isArray(items)) throw ctx.failure('Loop items must be an array', 'loop_items');
    if (items.length > config.max_items) {
      throw ctx.failure(`Loop has ${items.length} items, above max_items`, 'loop_too_large');
    }
    const results: unknown[] = new Array(items.length);
    const runOne = async (index: number) => {
      results[index] = await ctx.walkLoopBody(items[index], index, items.length);
      // Thousands of purely computed iterations in one workflow activation pile up async contexts
      // until Node aborts ("async hook stack has become corrupted", sdk-typescript#939). A checkpoint
      // every 200 iterations ends the activation (and shows the loop's progress). Not a timer: a
      // Temporal timer fires on the server's timer queue, ~1 s late however short it is.
      if (index % LOOP_CHECKPOINT_EVERY === LOOP_CHECKPOINT_EVERY - 1) await ctx.checkpoint();
    };
    if (config.mode === 'parallel') {
      let next = 0;
      const lanes = Array.from({ length: Math.min(config.concurrency, items.length) }, async () => {
        while (next < items.length) await runOne(next++);
      });
      await Promise.all(lanes);
    } else {
      for (let i = 0; i < items.length; i++) await runOne(i);
    }
    return { output: { count: items.length, results }, handle: 'done' };
  },
});
