import { describe, expect, it } from 'vitest';
import { WorkflowInput } from '../workflows/workflow-input';
import { inputSchemaProblems } from './input-schema';

const toolWorkflow = (input_schema: Record<string, unknown>) => ({
  name: 'x',
  trigger_type: 'tool',
  trigger_config: { name: 'lookup', input_schema },
  nodes: [{ id: 'a', type: 'action.transform', config: { assignments: [{ key: 'k', value: 'v' }] } }],
  edges: [],
});

describe('a tool input schema with a $schema other than 2020-12', () => {
  it.each([
    'http://json-schema.org/draft-07/schema#',
    42,
    'https://example.com/unknown-meta',
  ])('%s is a problem on trigger_config.input_schema, not a throw', (dialect) => {
    const schema = { $schema: dialect, type: 'object' };
    expect(inputSchemaProblems(schema)).toEqual([expect.stringContaining('2020-12')]);
    const parsed = WorkflowInput.safeParse(toolWorkflow(schema));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toContain('trigger_config.input_schema');
  });

  it('accepts the 2020-12 dialect named with or without its trailing #', () => {
    for (const $schema of [
      'https://json-schema.org/draft/2020-12/schema',
      'https://json-schema.org/draft/2020-12/schema#',
    ]) {
      expect(inputSchemaProblems({ $schema, type: 'object' })).toEqual([]);
    }
  });
});
