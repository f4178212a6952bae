import { describe, expect, it } from 'vitest';
import { fieldsOf, schemaWithFields, type ToolField, toolCallPreview } from '../src/lib/editor/tool-schema';

// The tool trigger's form ⇄ JSON Schema mapping (the browser test acts it out; these are its edges).
describe('the tool input schema form', () => {
  const handWritten = {
    type: 'object',
    additionalProperties: false,
    properties: {
      order_number: { type: 'string', pattern: '^[0-9]{4,10}$', description: 'The number' },
      priority: { enum: ['low', 'high'] },
    },
    required: ['order_number'],
  };

  it('reads rows from a schema; a property of no simple type reads as string', () => {
    expect(fieldsOf(handWritten)).toEqual([
      { name: 'order_number', type: 'string', required: true, description: 'The number' },
      { name: 'priority', type: 'string', required: false, description: '' },
    ]);
    expect(fieldsOf({ type: 'object' })).toEqual([]);
  });

  it('writes rows back keeping what the form does not show (pattern, enum, additionalProperties)', () => {
    const [order, priority] = fieldsOf(handWritten) as [ToolField, ToolField];
    const renamed = schemaWithFields(handWritten, [
      { ...order, name: 'order', required: false, description: ' ' },
      { ...priority, required: true },
    ]);
    expect(renamed).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        order: { type: 'string', pattern: '^[0-9]{4,10}$' },
        priority: { enum: ['low', 'high'], type: 'string' },
      },
      required: ['priority'],
    });
    // No required argument: no `required` keyword at all.
    expect(schemaWithFields(handWritten, [{ ...order, required: false }])).not.toHaveProperty('required');
  });

  it('previews the tools/call request with an example, default or first allowed value, else one of the type', () => {
    expect(
      toolCallPreview('lookup', {
        type: 'object',
        properties: {
          a: { type: 'string', examples: ['10482'] },
          b: { type: 'integer', default: 3 },
          c: { enum: ['low', 'high'] },
          d: { type: 'boolean' },
          e: { type: 'number' },
        },
      }).params,
    ).toEqual({ name: 'lookup', arguments: { a: '10482', b: 3, c: 'low', d: true, e: 1.5 } });
    expect(toolCallPreview('', { type: 'object' }).params).toEqual({ name: 'tool_name', arguments: {} });
  });
});
