import { describe, expect, it } from 'vitest';
import { WorkflowInput } from '../workflows/workflow-input';
import { argumentProblems, compiledCount, inputSchemaProblems } from './input-schema';

const toolWorkflow = (input_schema: Record<string, unknown>) => ({
  name: 'x',
  trigger_type: 'tool',
  trigger_config: { name: 'lookup', input_schema },
  nodes: [{ id: 'a', type: 'action.transform', config: { assignments: [{ key: 'k', value: 'v' }] } }],
  edges: [],
});

describe('a tool input schema with a $schema other than 2020-12', () => {
  it.each(['http://json-schema.org/draft-07/schema#', 42, 'https://example.com/unknown-meta'])(
    '%s is a problem on trigger_config.input_schema, not a throw',
    (dialect) => {
      const schema = { $schema: dialect, type: 'object' };
      expect(inputSchemaProblems(schema)).toEqual([expect.stringContaining('2020-12')]);
      const parsed = WorkflowInput.safeParse(toolWorkflow(schema));
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.map((i) => i.path.join('.'))).toContain('trigger_config.input_schema');
    },
  );

  it('accepts the 2020-12 dialect named with or without its trailing #', () => {
    for (const $schema of [
      'https://json-schema.org/draft/2020-12/schema',
      'https://json-schema.org/draft/2020-12/schema#',
    ]) {
      expect(inputSchemaProblems({ $schema, type: 'object' })).toEqual([]);
    }
  });
});

describe('schemas with an $id, one ajv for every organization', () => {
  const orgA = {
    $id: 'https://example.com/order',
    type: 'object',
    properties: { id: { $ref: '#/$defs/id' } },
    $defs: { id: { type: 'string' } },
  };
  const orgB = {
    $id: 'https://example.com/order',
    type: 'object',
    properties: { id: { $ref: '#/$defs/id' } },
    $defs: { id: { type: 'integer' } },
  };

  it('two organizations with the same $id each validate against their own schema', () => {
    expect(inputSchemaProblems(orgA)).toEqual([]);
    expect(inputSchemaProblems(orgB)).toEqual([]);
    expect(argumentProblems(orgA, { id: 'x' })).toEqual([]);
    expect(argumentProblems(orgA, { id: 1 })).not.toEqual([]);
    expect(argumentProblems(orgB, { id: 1 })).toEqual([]);
    expect(argumentProblems(orgB, { id: 'x' })).not.toEqual([]);
  });

  it('an edit keeping the $id is accepted and used', () => {
    const before = { $id: 'https://example.com/edit', type: 'object', required: ['a'] };
    const after = { $id: 'https://example.com/edit', type: 'object', required: ['b'] };
    expect(inputSchemaProblems(before)).toEqual([]);
    expect(argumentProblems(before, { a: 1 })).toEqual([]);
    expect(inputSchemaProblems(after)).toEqual([]);
    expect(argumentProblems(after, { b: 1 })).toEqual([]);
    expect(argumentProblems(after, { a: 1 })).toEqual([expect.stringContaining('b')]);
  });

  it('a schema ajv cannot compile is an argument problem, not a throw', () => {
    const broken = { type: 'object', properties: { a: { $ref: 'https://elsewhere.example/x' } } };
    expect(argumentProblems(broken, { a: 1 })).toEqual([expect.stringContaining('cannot be used')]);
  });

  it('the cache stays bounded', () => {
    for (let i = 0; i < 600; i++) argumentProblems({ type: 'object', title: `t${i}` }, {});
    expect(compiledCount()).toBeLessThanOrEqual(500);
  });
});
