import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findExpressions } from './find';
import { isParsedExpression } from './parse';
import { PIPE_NAMES, UnknownPipeError } from './pipes';
import { renderTemplate, renderValue } from './render';
import type { ExpressionScope, RenderOptions } from './scope';

const options: RenderOptions = { now: new Date('2024-02-29T13:05:09.123Z'), timezone: 'America/New_York' };

const scope: ExpressionScope = {
  trigger: {
    name: 'Ada',
    total: 42.5,
    vip: true,
    items: [{ sku: 'A1' }, { sku: 'B2' }],
    nothing: null,
    at: '2024-02-29T13:05:09.123Z',
    when: new Date('2024-02-29T13:05:09.123Z'),
  },
  nodes: { http1: { status: 200, body: { data: [1, 2, 3] } } },
  loop: { item: { sku: 'L1' }, index: 0, count: 2 },
  execution: { id: 'exec-1', workflow_id: 'wf-1', started_at: '2024-02-29T13:05:09.123Z' },
};

const render = (template: string, within: ExpressionScope = scope): unknown =>
  renderTemplate(template, within, options);

describe('renderTemplate', () => {
  it('keeps the type of a value that is exactly one expression', () => {
    expect(render('{{ trigger.items }}')).toEqual([{ sku: 'A1' }, { sku: 'B2' }]);
    expect(render('{{ nodes.http1.body }}')).toEqual({ data: [1, 2, 3] });
    expect(render('{{trigger.total}}')).toBe(42.5);
    expect(render('{{ trigger.vip }}')).toBe(true);
    expect(render('{{ trigger.nothing }}')).toBeNull();
    expect(render('{{ trigger.missing }}')).toBeNull();
    expect(render('{{ trigger.items | length }}')).toBe(2);
    expect(render('{{ loop.index }}')).toBe(0);
  });

  it('renders mixed text as a string: objects as JSON, null and missing as nothing', () => {
    expect(render('Hi {{ trigger.name }}!')).toBe('Hi Ada!');
    expect(render('Total: {{ trigger.total }} ({{trigger.vip}})')).toBe('Total: 42.5 (true)');
    expect(render('items={{ trigger.items }}')).toBe('items=[{"sku":"A1"},{"sku":"B2"}]');
    expect(render('[{{ trigger.nothing }}|{{ trigger.missing }}]')).toBe('[|]');
    expect(render('{{ trigger.name }}{{ trigger.total }}')).toBe('Ada42.5');
    expect(render(' {{ trigger.total }} ')).toBe(' 42.5 ');
    expect(render('at {{ trigger.when }}')).toBe('at 2024-02-29T13:05:09.123Z');
  });

  it('returns strings without expressions unchanged', () => {
    expect(render('')).toBe('');
    expect(render('no braces { here }')).toBe('no braces { here }');
    expect(render('a }} b')).toBe('a }} b');
  });

  it('applies pipes, with dates in the workflow zone', () => {
    expect(render('{{ trigger.name | upper }} / {{ trigger.nothing | default:n/a }}')).toBe('ADA / n/a');
    expect(render('{{ trigger.at | date:D, d M Y g:i A T }}')).toBe('Thu, 29 Feb 2024 8:05 AM EST');
    expect(render('{{ trigger.when | date:c }}')).toBe('2024-02-29T08:05:09-05:00');
    expect(render('{{ execution.started_at | date:U }}')).toBe('1709211909');
  });

  it('renders malformed expressions and unknown roots as null, and an unclosed {{ as text', () => {
    expect(render('{{ trigger. }}')).toBeNull();
    expect(render('a{{ 1 + 2 }}b')).toBe('ab');
    expect(render('{{ env.HOME }}')).toBeNull();
    expect(render('{{ process.env.SECRET }}')).toBeNull();
    expect(render('Hi {{ trigger.name')).toBe('Hi {{ trigger.name');
  });

  it('writes \\{{ as literal braces', () => {
    expect(render('\\{{ trigger.name }} is {{ trigger.name }}')).toBe('{{ trigger.name }} is Ada');
  });

  it('throws UnknownPipeError for an unknown pipe and nothing else', () => {
    expect(() => render('{{ trigger.name | shout }}')).toThrow(UnknownPipeError);
    expect(() => render('x {{ trigger.missing | nope }}')).toThrow('unknown pipe "nope"');
  });
});

describe('renderValue', () => {
  it('renders strings inside objects and arrays, leaving keys and other values alone', () => {
    const config = {
      url: 'https://api.example.com/orders/{{ trigger.items[0].sku }}',
      '{{ trigger.name }}': 'key stays',
      body: '{{ trigger.items }}',
      headers: { 'X-Count': '{{ trigger.items | length }}' },
      list: ['{{ loop.item.sku }}', 3, null, true, ['{{ execution.id }}']],
      retries: 3,
      enabled: false,
      nothing: null,
    };
    expect(renderValue(config, scope, options)).toEqual({
      url: 'https://api.example.com/orders/A1',
      '{{ trigger.name }}': 'key stays',
      body: [{ sku: 'A1' }, { sku: 'B2' }],
      headers: { 'X-Count': 2 },
      list: ['L1', 3, null, true, ['exec-1']],
      retries: 3,
      enabled: false,
      nothing: null,
    });
  });

  it('never modifies its input', () => {
    const config = { a: ['{{ trigger.name }}'], b: { c: '{{ trigger.total }}' } };
    const copy = structuredClone(config);
    const rendered = renderValue(config, scope, options) as typeof config;
    expect(config).toEqual(copy);
    expect(rendered.a).not.toBe(config.a);
  });

  it('keeps a config key named __proto__ as a plain key without touching any prototype', () => {
    const config = JSON.parse('{"__proto__": {"polluted": "{{ trigger.name }}"}, "ok": 1}');
    const rendered = renderValue(config, scope, options) as Record<string, unknown>;
    expect(Object.getPrototypeOf(rendered)).toBe(Object.prototype);
    expect(Object.hasOwn(rendered, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(rendered, '__proto__')?.value).toEqual({ polluted: 'Ada' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('passes through values that are not strings, arrays or plain objects', () => {
    const date = new Date(0);
    expect(renderValue(date, scope, options)).toBe(date);
    expect(renderValue(7, scope, options)).toBe(7);
    expect(renderValue(undefined, scope, options)).toBeUndefined();
  });
});

describe('rendering properties', () => {
  const FORBIDDEN = ['__proto__', 'prototype', 'constructor'];
  const SAFE_PIPES = PIPE_NAMES.map((name) => fc.constant(name));
  const arbitraryScope: fc.Arbitrary<ExpressionScope> = fc.record(
    {
      trigger: fc.jsonValue(),
      nodes: fc.dictionary(fc.string(), fc.jsonValue()),
      loop: fc.record({ item: fc.jsonValue(), index: fc.nat(), count: fc.nat() }),
      execution: fc.record({ id: fc.string(), workflow_id: fc.string(), started_at: fc.string() }),
    },
    { requiredKeys: ['trigger', 'nodes', 'execution'] },
  );
  /** `'…'` with the template's escapes, so any text can be a key or an argument. */
  const quote = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const segmentText = fc.oneof(
    fc.nat({ max: 30 }).map((n) => `[${n}]`),
    fc.string().map((key) => `[${quote(key)}]`),
    fc.stringMatching(/^[A-Za-z0-9_$-]{1,8}$/).map((name) => `.${name}`),
    fc.constantFrom(...FORBIDDEN).map((name) => `.${name}`),
  );
  const pipeText = fc
    .tuple(fc.oneof(...SAFE_PIPES), fc.array(fc.string(), { maxLength: 2 }))
    .map(([name, args]) => (args.length === 0 ? name : `${name}:${args.map(quote).join(':')}`));
  const expressionText = fc
    .tuple(
      fc.constantFrom('trigger', 'nodes', 'loop', 'execution', 'env', 'x'),
      fc.array(segmentText, { maxLength: 6 }),
      fc.array(pipeText, { maxLength: 3 }),
    )
    .map(([root, path, pipes]) => `{{ ${root}${path.join('')}${pipes.map((p) => ` | ${p}`).join('')} }}`);
  const templateText = fc
    .array(fc.oneof(fc.string(), expressionText), { minLength: 1, maxLength: 4 })
    .map((pieces) => pieces.join(''));
  const configValue = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      templateText,
      fc.jsonValue(),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.string(), tie('value'), { maxKeys: 3 }),
    ),
  })).value;
  const anyOptions: fc.Arbitrary<RenderOptions> = fc.record({
    now: fc.date({ noInvalidDate: true }),
    timezone: fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata', 'Not/AZone', ''),
  });

  it('renderValue never throws on arbitrary scopes, paths, known pipes and config values', () => {
    fc.assert(
      fc.property(configValue, arbitraryScope, anyOptions, (config, within, renderOptions) => {
        expect(() => renderValue(config, within, renderOptions)).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });

  it('throws for arbitrary template text only when it names an unknown pipe', () => {
    const grammarChars = fc.constantFrom(...'{}|:.[]\'"\\ 0t trigger nodes upper default date x'.split(''));
    const text = fc.oneof(fc.string(), fc.string({ unit: grammarChars, maxLength: 40 }));
    fc.assert(
      fc.property(text, arbitraryScope, (template, within) => {
        const unknownPipe = findExpressions(template).some(
          (found) => isParsedExpression(found) && found.pipes.some((p) => !PIPE_NAMES.includes(p.name)),
        );
        try {
          renderTemplate(template, within, options);
          expect(unknownPipe).toBe(false);
        } catch (error) {
          expect(error).toBeInstanceOf(UnknownPipeError);
          expect(unknownPipe).toBe(true);
        }
      }),
      { numRuns: 1_000 },
    );
  });

  it('yields null for any path through __proto__, prototype or constructor and pollutes nothing', () => {
    fc.assert(
      fc.property(
        arbitraryScope,
        fc.constantFrom('trigger', 'nodes', 'loop', 'execution'),
        fc.array(segmentText, { maxLength: 3 }),
        fc.constantFrom(...FORBIDDEN),
        fc.boolean(),
        fc.array(segmentText, { maxLength: 3 }),
        (within, root, before, forbidden, bracketed, after) => {
          const step = bracketed ? `['${forbidden}']` : `.${forbidden}`;
          const template = `{{ ${root}${before.join('')}${step}${after.join('')} }}`;
          expect(renderTemplate(template, within, options)).toBeNull();
          expect(renderTemplate(`x${template}`, within, options)).toBe('x');
          expect(Object.keys(Object.prototype)).toEqual([]);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      ),
    );
  });

  it('renders text without {{ as itself', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('{{')),
        (text) => {
          expect(renderTemplate(text, scope, options)).toBe(text);
        },
      ),
    );
  });
});
