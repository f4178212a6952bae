import { api, call } from '$api/client';
import type { WorkflowEditor } from './editor.svelte';

/**
 * "Debug in editor" (n8n's name): a past execution's data loaded into the editor as pins, so a
 * person can change the workflow and test it on exactly the data that went wrong, without calling
 * anything the pinned steps call. Only the steps a replay would reuse are pinned (those that call
 * out or wait: GET /node-types' `reuses_recording`); computed steps run again, so a change to them
 * shows. And only what a pin can hold: a completed step outside a loop body (one output, not one
 * per item) whose node is still there with the same type, and whose output is an object.
 */
interface RanStep {
  node_id: string;
  node_type: string;
  iteration: number | null;
  status: string;
  output?: unknown;
}

export function pinsFromSteps(
  steps: readonly RanStep[],
  nodes: readonly { id: string; type: string }[],
  reusesRecording: (type: string) => boolean,
): Map<string, Record<string, unknown>> {
  const typeOf = new Map(nodes.map((n) => [n.id, n.type]));
  const pins = new Map<string, Record<string, unknown>>();
  for (const step of steps) {
    const output = step.output;
    if (step.iteration !== null || step.status !== 'completed') continue;
    if (typeOf.get(step.node_id) !== step.node_type || !reusesRecording(step.node_type)) continue;
    if (output === null || typeof output !== 'object' || Array.isArray(output)) continue;
    pins.set(step.node_id, output as Record<string, unknown>);
  }
  return pins;
}

/** Loads execution `executionId` into the editor as pins; answers what it did, in words. */
export async function debugInEditor(editor: WorkflowEditor, executionId: string) {
  const execution = await call(api.GET('/executions/{id}', { params: { path: { id: executionId } } }));
  if (execution.workflow_id !== editor.workflowId) {
    throw new Error(
      `Execution ${executionId.slice(0, 8)}… ran another workflow: open it from that workflow.`,
    );
  }
  const pins = pinsFromSteps(
    execution.steps as RanStep[],
    editor.steps.map((n) => n.data.saved),
    (type) => editor.typeOf(type)?.reuses_recording === true,
  );
  editor.pinOutputs(pins);
  const payload =
    execution.trigger_payload && typeof execution.trigger_payload === 'object'
      ? (execution.trigger_payload as Record<string, unknown>)
      : null;
  const count = pins.size;
  const notice =
    count === 0
      ? `Loaded the trigger data of execution ${executionId.slice(0, 8)}… for test runs; none of its steps calls out, so nothing is pinned.`
      : `Pinned the outputs of ${count} step${count === 1 ? '' : 's'} that call${count === 1 ? 's' : ''} out, from execution ${executionId.slice(0, 8)}…, and loaded its trigger data: change the workflow and test it on that data without calling anything again. Save to keep the pins, or undo (Ctrl+Z).`;
  return { notice, payload, execution };
}
