import { FormField } from '@weft/graph';
import { describe, expect, it } from 'vitest';
import { validateSubmission } from './fields';

const fields = [
  { name: 'email', label: 'E-mail', type: 'email', required: true },
  { name: 'seats', label: 'Seats', type: 'number' },
  { name: 'plan', label: 'Plan', type: 'select', options: ['Team', 'Business'] },
  { name: 'notes', label: 'Notes', type: 'textarea' },
  { name: 'consent', label: 'Consent', type: 'checkbox', required: true },
].map((f) => FormField.parse(f));

describe('validateSubmission', () => {
  it('types each value and drops keys the form does not have', () => {
    expect(
      validateSubmission(fields, { email: ' a@b.example ', seats: '3', plan: 'Team', consent: 'on', x: 1 }),
    ).toEqual({ values: { email: 'a@b.example', seats: 3, plan: 'Team', notes: '', consent: true } });
    expect(validateSubmission(fields, { email: 'a@b.example', seats: 2.5, consent: true })).toEqual({
      values: { email: 'a@b.example', seats: 2.5, plan: '', notes: '', consent: true },
    });
  });

  it('names every field in error, in words', () => {
    const result = validateSubmission(fields, {
      seats: '1e999',
      plan: 'Gold',
      notes: { a: 1 },
      consent: 'maybe',
    });
    expect(result).toEqual({
      errors: {
        email: ['E-mail is required.'],
        seats: ['Seats must be a number.'],
        plan: ['Plan must be one of the choices.'],
        notes: ['must be text'],
        consent: ['must be checked or not'],
      },
    });
    expect(validateSubmission(fields, { email: 'x', consent: false })).toEqual({
      errors: { email: ['E-mail must be an e-mail address.'], consent: ['Consent must be checked.'] },
    });
    expect(
      validateSubmission(fields, { email: 'a@b.example', consent: true, notes: 'x'.repeat(10_001) }),
    ).toEqual({
      errors: { notes: ['Notes must be at most 10000 characters.'] },
    });
  });
});
