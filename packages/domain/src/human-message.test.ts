import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldsFromIssues } from './errors';

const fieldsOf = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a failure');
  return fieldsFromIssues(parsed.error.issues);
};

describe("validation messages in words (the 422's fields)", () => {
  it("says zod's own texts as a person would", () => {
    const schema = z.strictObject({
      name: z.string().min(1),
      code: z.string().min(3).max(5),
      tags: z.array(z.string()).min(1),
      count: z.number().max(10),
      kind: z.enum(['a', 'b']),
      email: z.email(),
      missing: z.string(),
    });
    expect(
      fieldsOf(schema, { name: '', code: 'toolong', tags: [], count: 11, kind: 'c', email: 'x', extra: 1 }),
    ).toEqual({
      name: ['is required'],
      code: ['must be at most 5 characters'],
      tags: ['must have at least 1 item'],
      count: ['must be at most 10'],
      kind: ['must be one of: a, b'],
      email: ['must be a valid email'],
      missing: ['is required'],
      _: ['has unknown field: extra'],
    });
    expect(fieldsOf(z.object({ n: z.number() }), { n: 'x' })).toEqual({ n: ['must be a number'] });
  });

  it('keeps messages a schema wrote itself', () => {
    expect(
      fieldsOf(z.object({ name: z.string().min(1, 'The name field is required.') }), { name: '' }),
    ).toEqual({
      name: ['The name field is required.'],
    });
  });
});
