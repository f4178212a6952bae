import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileTemplate, isParsedExpression, type PathSegment } from './parse';
import { resolvePath } from './resolve';
import type { ExpressionScope } from './scope';

const scope: ExpressionScope = {
  trigger: {
    name: 'Ada',
    items: [{ sku: 'A1' }, { sku: 'B2', tags: ['x', 'y'] }],
    'first name': 'Ada',
    'a.b': { c: 1 },
    matrix: [
      [1, 2],
      [3, 4],
    ],
    zero: 0,
    empty: '',
    nothing: null,
    flag: false,
    nested: { deep: { deeper: { value: 'found' } } },
  },
  nodes: { http1: { status: 200, body: { data: [10, 20, 30] } }, 'http-2': { ok: true } },
  loop: { item: { sku: 'L1' }, index: 2, count: 5 },
  execution: { id: 'exec-1', workflow_id: 'wf-1', started_at: '2024-02-29T13:05:09.123Z' },
};

/** Resolves the path of the single expression in `template` (pipes ignored). */
function resolve(template: string, within: ExpressionScope = scope): unknown {
  const [expression] = compileTemplate(template).expressions;
  if (expression === undefined || !isParsedExpression(expression))
    throw new Error(`not an expression: ${template}`);
  return resolvePath(within, expression.root, expression.path);
}

describe('resolvePath', () => {
  it.each([
    ['{{trigger.name}}', 'Ada'],
    ['{{trigger.items[0].sku}}', 'A1'],
    ['{{trigger.items.1.sku}}', 'B2'],
    ['{{trigger.items[1].tags[1]}}', 'y'],
    ['{{trigger.matrix[1][0]}}', 3],
    ["{{trigger['first name']}}", 'Ada'],
    ['{{trigger["a.b"].c}}', 1],
    ['{{trigger.nested.deep.deeper.value}}', 'found'],
    ['{{trigger.zero}}', 0],
    ['{{trigger.empty}}', ''],
    ['{{trigger.flag}}', false],
    ['{{trigger.nothing}}', null],
    ['{{trigger.items.length}}', 2],
    ['{{trigger.name.length}}', 3],
    ['{{trigger.name[0]}}', 'A'],
    ['{{nodes.http1.body.data[2]}}', 30],
    ['{{nodes.http-2.ok}}', true],
    ["{{nodes['http-2'].ok}}", true],
    ['{{loop.item.sku}}', 'L1'],
    ['{{loop.index}}', 2],
    ['{{loop.count}}', 5],
    ['{{execution.id}}', 'exec-1'],
    ['{{execution.workflow_id}}', 'wf-1'],
    ['{{execution.started_at}}', '2024-02-29T13:05:09.123Z'],
  ])('%s → %j', (template, expected) => {
    expect(resolve(template)).toEqual(expected);
  });

  it('yields whole roots and subtrees by reference', () => {
    expect(resolve('{{trigger}}')).toBe(scope.trigger);
    expect(resolve('{{nodes.http1.body}}')).toEqual({ data: [10, 20, 30] });
    expect(resolve('{{loop}}')).toEqual({ item: { sku: 'L1' }, index: 2, count: 5 });
  });

  it.each([
    ['{{trigger.missing}}'],
    ['{{trigger.missing.deeper}}'],
    ['{{trigger.items[9].sku}}'],
    ['{{trigger.items.-1}}'],
    ['{{trigger.name.first}}'],
    ['{{trigger.zero.x}}'],
    ['{{trigger.flag.x}}'],
    ['{{trigger.nothing.x}}'],
    ['{{nodes.unknown.x}}'],
    ['{{execution.secret}}'],
    ['{{env.HOME}}'],
    ['{{process.env}}'],
    ['{{globalThis}}'],
  ])('%s → null', (template) => {
    expect(resolve(template)).toBeNull();
  });

  it('yields null for loop fields outside a loop', () => {
    const { loop: _outside, ...noLoop } = scope;
    expect(resolve('{{loop.item}}', noLoop)).toBeNull();
    expect(resolve('{{loop}}', noLoop)).toBeNull();
  });

  it('never follows inherited members, only own data', () => {
    for (const template of [
      '{{trigger.toString}}',
      '{{trigger.hasOwnProperty}}',
      '{{trigger.__defineGetter__}}',
      '{{trigger.valueOf}}',
      '{{trigger.items.map}}',
      '{{trigger.name.toUpperCase}}',
      '{{nodes.toString}}',
      '{{nodes.hasOwnProperty}}',
      '{{execution.toString}}',
    ]) {
      expect(resolve(template), template).toBeNull();
    }
  });

  it.each([
    ['{{trigger.__proto__}}'],
    ['{{trigger.constructor}}'],
    ['{{trigger.constructor.prototype}}'],
    ['{{trigger.items.constructor.name}}'],
    ["{{trigger['__proto__'].polluted}}"],
    ['{{trigger.prototype}}'],
    ['{{nodes.__proto__}}'],
    ['{{nodes.constructor.constructor}}'],
    ['{{trigger.name.constructor}}'],
  ])('%s → null: prototypes and constructors are never traversed', (template) => {
    expect(resolve(template)).toBeNull();
  });

  it('does not traverse own keys named __proto__, prototype or constructor either', () => {
    const hostile: ExpressionScope = {
      ...scope,
      trigger: JSON.parse('{"__proto__": {"x": 1}, "constructor": {"y": 2}, "prototype": {"z": 3}}'),
    };
    expect(resolve('{{trigger.__proto__.x}}', hostile)).toBeNull();
    expect(resolve('{{trigger.constructor.y}}', hostile)).toBeNull();
    expect(resolve('{{trigger.prototype.z}}', hostile)).toBeNull();
  });

  it('reads null-prototype objects and never leaks functions', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, fn: () => 1 });
    const within: ExpressionScope = { ...scope, trigger: bare };
    expect(resolve('{{trigger.a}}', within)).toBe(1);
    expect(resolve('{{trigger.fn}}', within)).toBeNull();
  });

  it('treats a throwing getter or Proxy in the data as missing', () => {
    const getter = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    const proxy = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new Error('trap');
        },
      },
    );
    expect(resolve('{{trigger.boom}}', { ...scope, trigger: getter })).toBeNull();
    expect(resolve('{{trigger.any}}', { ...scope, trigger: proxy })).toBeNull();
  });
});

describe('resolvePath properties', () => {
  const FORBIDDEN = ['__proto__', 'prototype', 'constructor'];
  const segment: fc.Arbitrary<PathSegment> = fc.oneof(fc.string(), fc.nat({ max: 20 }));
  const arbitraryScope: fc.Arbitrary<ExpressionScope> = fc.record({
    trigger: fc.jsonValue(),
    nodes: fc.dictionary(fc.string(), fc.jsonValue()),
    execution: fc.record({ id: fc.string(), workflow_id: fc.string(), started_at: fc.string() }),
  });

  it('never throws on arbitrary scopes, roots and paths', () => {
    fc.assert(
      fc.property(
        arbitraryScope,
        fc.oneof(fc.constantFrom('trigger', 'nodes', 'loop', 'execution'), fc.string()),
        fc.array(segment, { maxLength: 8 }),
        (within, root, path) => {
          expect(() => resolvePath(within, root, path)).not.toThrow();
          expect(resolvePath(within, root, path)).not.toBeUndefined();
        },
      ),
    );
  });

  it('finds every value at the path it was put at', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string().filter((key) => !FORBIDDEN.includes(key)),
          { minLength: 1, maxLength: 6 },
        ),
        fc.jsonValue(),
        (keys, leaf) => {
          const trigger = keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), leaf);
          const within: ExpressionScope = { trigger, nodes: {}, execution: scope.execution };
          expect(resolvePath(within, 'trigger', keys)).toEqual(leaf);
        },
      ),
    );
  });

  it('yields null for any path through __proto__, prototype or constructor, and pollutes nothing', () => {
    fc.assert(
      fc.property(
        arbitraryScope,
        fc.array(segment, { maxLength: 4 }),
        fc.constantFrom(...FORBIDDEN),
        fc.array(segment, { maxLength: 4 }),
        (within, before, forbidden, after) => {
          const path = [...before, forbidden, ...after];
          expect(resolvePath(within, 'trigger', path)).toBeNull();
          expect(resolvePath(within, 'nodes', path)).toBeNull();
          expect(Object.keys(Object.prototype)).toEqual([]);
        },
      ),
    );
  });
});
