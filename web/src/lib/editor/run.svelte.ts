import { api, call } from '$api/client';
import type { components } from '$api/schema';

type Execution = components['schemas']['Execution'];
type Step = components['schemas']['Step'];

const TERMINAL = new Set(['success', 'partial', 'failed', 'cancelled', 'completed']);

/**
 * A run shown on the canvas: a test run started from the editor, or a past execution opened
 * there. Polls GET /executions/{id} until the run ends (live updates are polling; see decisions.md)
 * and keeps its steps by node id, the last attempt or loop iteration winning.
 */
export class RunOverlay {
  execution = $state.raw<Execution | null>(null);
  steps = $state.raw(new Map<string, Step>());
  #timer: ReturnType<typeof setTimeout> | undefined;

  readonly finished = $derived(this.execution ? TERMINAL.has(this.execution.status) : false);

  async follow(executionId: string) {
    this.stop();
    const tick = async () => {
      const execution = await call(api.GET('/executions/{id}', { params: { path: { id: executionId } } }));
      this.show(execution);
      if (!TERMINAL.has(execution.status)) this.#timer = setTimeout(() => void tick(), 400);
    };
    await tick();
  }

  show(execution: Execution) {
    this.execution = execution;
    const steps = new Map<string, Step>();
    for (const step of execution.steps) steps.set(step.node_id, step);
    this.steps = steps;
  }

  clear() {
    this.stop();
    this.execution = null;
    this.steps = new Map();
  }

  stop() {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
