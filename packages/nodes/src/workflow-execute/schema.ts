import { z } from 'zod';
import { defineNodeType, MAIN_OUTPUT } from '../define';
import { workflowExecuteWorkflow } from './workflow';

export const WorkflowExecuteConfig = z.object({
  workflow_id: z.string().min(1).max(64),
  input: z.record(z.string(), z.unknown()).optional(),
  /** Wait for the child execution to finish and output its result; otherwise continue at once. */
  wait: z.boolean().default(true),
});

export const workflowExecute = defineNodeType({
  type: 'action.workflow.execute',
  name: 'Execute workflow',
  category: 'flow',
  description: 'Runs another workflow of the organization as a child execution.',
  icon: 'play',
  config: WorkflowExecuteConfig,
  output: z.object({ execution_id: z.string(), status: z.string(), output: z.unknown().optional() }),
  outputs: MAIN_OUTPUT,
  workflow: workflowExecuteWorkflow,
});
