import type { WorkflowNodeType } from './workflow-node';

/**
 * What the workbench (DESIGN §15: pins, disabled steps, test runs, replay) asks of a node type,
 * read from the traits in the type's `workflow.ts`. Read in workflow code (see runtime.ts).
 */

/** Whether a replay takes this type's recorded output instead of running it (see `inReplay`). */
export function replaysFromRecording(kind: WorkflowNodeType): boolean {
  return (kind.inReplay ?? (kind.runsIn === 'activity' ? 'recorded' : 'run')) === 'recorded';
}

/** The handle a node fired, read back from an output it did not compute now; undefined = its only output. */
export function handleOfOutput(kind: WorkflowNodeType, output: unknown): string | undefined {
  const value = typeof output === 'object' && output !== null ? (output as Record<string, unknown>) : {};
  return kind.handleOf?.(value);
}

/** The handle a disabled node fires as it passes its input through; undefined = its only output. */
export function disabledHandle(kind: WorkflowNodeType): string | undefined {
  return kind.disabledHandle;
}
