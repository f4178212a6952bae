import type { FormField } from '@weft/graph';
import type { FieldErrors } from '../errors';

/** Longest value a text field keeps (a textarea's is larger). */
const TEXT_MAX = 1_000;
const TEXTAREA_MAX = 10_000;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A checkbox as HTML posts it (`on`), or as JSON sends it. */
function checked(value: unknown): boolean | null {
  if (value === undefined || value === null || value === '' || value === false) return false;
  if (value === true) return true;
  if (typeof value === 'string' && ['on', 'true', '1', 'yes'].includes(value.toLowerCase())) return true;
  if (typeof value === 'string' && ['false', '0', 'no', 'off'].includes(value.toLowerCase())) return false;
  return null;
}

/**
 * A submission checked against the form's fields: each value in its type (numbers as numbers,
 * checkboxes as booleans, text trimmed), or the errors by field name in the API's envelope shape.
 * Keys the form does not have are dropped: the run sees the fields it was built for.
 */
export function validateSubmission(
  fields: readonly FormField[],
  body: Record<string, unknown>,
): { values: Record<string, unknown> } | { errors: FieldErrors } {
  const values: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const field of fields) {
    const raw = Object.hasOwn(body, field.name) ? body[field.name] : undefined;
    const fail = (message: string) => {
      errors[field.name] = [message];
    };
    if (field.type === 'checkbox') {
      const value = checked(raw);
      if (value === null) fail('must be checked or not');
      else if (field.required && !value) fail(`${field.label} must be checked.`);
      else values[field.name] = value;
      continue;
    }
    if (raw !== undefined && raw !== null && typeof raw !== 'string' && typeof raw !== 'number') {
      fail('must be text');
      continue;
    }
    const text = raw === undefined || raw === null ? '' : String(raw).trim();
    if (text === '') {
      if (field.required) fail(`${field.label} is required.`);
      else values[field.name] = field.type === 'number' ? null : '';
      continue;
    }
    if (text.includes('\0')) {
      fail('must not contain NUL characters');
      continue;
    }
    switch (field.type) {
      case 'number': {
        const n = Number(text);
        if (!Number.isFinite(n)) fail(`${field.label} must be a number.`);
        else values[field.name] = n;
        break;
      }
      case 'email':
        if (text.length > 254 || !EMAIL.test(text)) fail(`${field.label} must be an e-mail address.`);
        else values[field.name] = text;
        break;
      case 'select':
        if (!field.options?.includes(text)) fail(`${field.label} must be one of the choices.`);
        else values[field.name] = text;
        break;
      default: {
        const max = field.type === 'textarea' ? TEXTAREA_MAX : TEXT_MAX;
        if (text.length > max) fail(`${field.label} must be at most ${max} characters.`);
        else values[field.name] = text;
      }
    }
  }
  return Object.keys(errors).length > 0 ? { errors } : { values };
}
