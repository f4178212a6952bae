import { describe, expect, it } from 'vitest';
import { parsePinned, pinnable, stepMarkers, testRunScope } from '../src/lib/editor/step-view/markers';

// The build loop's pure parts (issue 21 §2): the test-run body of each step button, pins typed as
// JSON, which outputs can be pinned, and the canvas classes of pinned and disabled steps.

describe('the build loop, pure parts', () => {
  it('maps each step button to start_at / stop_after (DESIGN §15)', () => {
    expect(testRunScope('only', 'fetch')).toEqual({ start_at: 'fetch', stop_after: 'fetch' });
    expect(testRunScope('upto', 'fetch')).toEqual({ stop_after: 'fetch' });
    expect(testRunScope('from', 'fetch')).toEqual({ start_at: 'fetch' });
  });

  it('takes typed JSON objects as pins and says what is wrong with anything else', () => {
    expect(parsePinned('{"status": 200}')).toEqual({ value: { status: 200 } });
    expect(parsePinned('{status: 200}')).toMatchObject({
      error: expect.stringMatching(/^This is not valid JSON/),
    });
    for (const text of ['[1, 2]', '"text"', '42', 'null'])
      expect(parsePinned(text)).toMatchObject({ error: expect.stringMatching(/must be a JSON object/) });
  });

  it('pins only object outputs', () => {
    expect(pinnable({ a: 1 })).toEqual({ a: 1 });
    expect(pinnable([1])).toBeUndefined();
    expect(pinnable('x')).toBeUndefined();
    expect(pinnable(null)).toBeUndefined();
  });

  it('marks pinned and disabled steps with classes, none for a plain step', () => {
    expect(stepMarkers({})).toBeUndefined();
    expect(stepMarkers({ pinned_output: {} })).toBe('step-pinned');
    expect(stepMarkers({ pinned_output: { a: 1 }, disabled: true })).toBe('step-pinned step-disabled');
  });
});

describe('the step view input pane', () => {
  it('lists every field with the expression that reads it, odd keys quoted, lists by index', async () => {
    const { fieldRows } = await import('../src/lib/editor/step-view/fields');
    const rows = fieldRows('nodes.fetch', {
      status: 200,
      body: { items: [{ sku: 'A-1' }], 'odd key': true },
    });
    expect(rows.map((r) => [r.label, r.expression, r.depth])).toEqual([
      ['status', '{{ nodes.fetch.status }}', 0],
      ['body', '{{ nodes.fetch.body }}', 0],
      ['body.items', '{{ nodes.fetch.body.items }}', 1],
      ['body.items[0]', '{{ nodes.fetch.body.items[0] }}', 2],
      ['body.items[0].sku', '{{ nodes.fetch.body.items[0].sku }}', 3],
      ['body["odd key"]', '{{ nodes.fetch.body["odd key"] }}', 1],
    ]);
    expect(rows[0]?.preview).toBe('200');
    expect(rows[2]?.preview).toBe('list · 1');
    expect(fieldRows('trigger', 'text')).toEqual([]);
    expect(fieldRows('trigger', { a: { b: { c: 1 } } }, 1).map((r) => r.label)).toEqual(['a', 'a.b']);
  });
});
