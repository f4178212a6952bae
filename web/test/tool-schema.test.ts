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
      {
        name: 'order_number',
        type: 'string',
        required: true,
        description: 'The number',
        source: 'order_number',
      },
      { name: 'priority', type: 'string', required: false, description: '', source: 'priority' },
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
        priority: { enum: ['low', 'high'] },
      },
      required: ['priority'],
    });
    // No required argument: no `required` keyword at all.
    expect(schemaWithFields(handWritten, [{ ...order, required: false }])).not.toHaveProperty('required');
  });

  it("removing a row leaves the later rows their own keywords, not the removed row's", () => {
    const schema = {
      type: 'object',
      properties: {
        code: { type: 'string', pattern: '^[A-Z]+$' },
        count: { type: 'integer', minimum: 1 },
        tags: { type: 'array', items: { type: 'string' } },
      },
    };
    const [, count, tags] = fieldsOf(schema) as [ToolField, ToolField, ToolField];
    expect(schemaWithFields(schema, [count, tags]).properties).toEqual({
      count: { type: 'integer', minimum: 1 },
      tags: { type: 'array', items: { type: 'string' } },
    });
    // A new row after a removal carries nothing of anyone's.
    const fresh: ToolField = { name: 'extra', type: 'string', required: false, description: '' };
    expect(schemaWithFields(schema, [tags, fresh]).properties).toEqual({
      tags: { type: 'array', items: { type: 'string' } },
      extra: { type: 'string' },
    });
  });

  it('an edit elsewhere keeps types the form cannot show; changing the type in the form writes it', () => {
    const schema = {
      type: 'object',
      properties: {
        note: { type: ['string', 'null'] },
        any: { description: 'Anything' },
        n: { type: 'number' },
      },
    };
    const [note, any, n] = fieldsOf(schema) as [ToolField, ToolField, ToolField];
    const edited = schemaWithFields(schema, [
      note,
      { ...any, description: 'Whatever' },
      { ...n, required: true },
    ]);
    expect(edited.properties).toEqual({
      note: { type: ['string', 'null'] },
      any: { description: 'Whatever' },
      n: { type: 'number' },
    });
    expect(schemaWithFields(schema, [{ ...note, type: 'integer' }]).properties).toEqual({
      note: { type: 'integer' },
    });
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
