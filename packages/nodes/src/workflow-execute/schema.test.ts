import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { WorkflowExecuteConfig } from './schema';

describe('action.workflow.execute config', () => {
  it('is the schema registered for action.workflow.execute', () => {
    expect(getNodeType('action.workflow.execute')?.config).toBe(WorkflowExecuteConfig);
  });

  it('accepts a workflow id and defaults wait to true', () => {
    expect(WorkflowExecuteConfig.parse({ workflow_id: '0190c1a2-0000-7000-8000-000000000000' }).wait).toBe(
      true,
    );
  });

  it('refuses a missing or empty workflow id and a non-object input', () => {
    expect(WorkflowExecuteConfig.safeParse({}).success).toBe(false);
    expect(WorkflowExecuteConfig.safeParse({ workflow_id: '' }).success).toBe(false);
    expect(WorkflowExecuteConfig.safeParse({ workflow_id: 'w', input: [1, 2] }).success).toBe(false);
  });
});
