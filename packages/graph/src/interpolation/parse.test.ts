import { describe, expect, it } from 'vitest';
import { findExpressions } from './find';
import { compileTemplate, type FoundExpression } from './parse';

/** The one expression of a template. */
function parseOne(template: string): FoundExpression {
  const expressions = compileTemplate(template).expressions;
  expect(expressions).toHaveLength(1);
  return expressions[0] as FoundExpression;
}

describe('compileTemplate: paths', () => {
  it.each([
    ['{{trigger}}', 'trigger', []],
    ['{{ trigger.name }}', 'trigger', ['name']],
    ['{{trigger.items[0].sku}}', 'trigger', ['items', 0, 'sku']],
    ['{{nodes.http1.body.data[2]}}', 'nodes', ['http1', 'body', 'data', 2]],
    ['{{nodes.http-1.body}}', 'nodes', ['http-1', 'body']],
    ['{{ trigger.items.0 }}', 'trigger', ['items', '0']],
    ['{{trigger.matrix[1][2]}}', 'trigger', ['matrix', 1, 2]],
    ['{{ trigger[ 3 ] }}', 'trigger', [3]],
    ["{{trigger['first name']}}", 'trigger', ['first name']],
    ['{{trigger["a.b"].c}}', 'trigger', ['a.b', 'c']],
    ["{{trigger['it\\'s']}}", 'trigger', ["it's"]],
    ['{{trigger["say \\"hi\\""]}}', 'trigger', ['say "hi"']],
    ["{{trigger['back\\\\slash']}}", 'trigger', ['back\\slash']],
    ["{{trigger['}}|:']}}", 'trigger', ['}}|:']],
    ['{{ loop.item.$id }}', 'loop', ['item', '$id']],
    ['{{ trigger.prénom }}', 'trigger', ['prénom']],
    ['{{ execution.started_at }}', 'execution', ['started_at']],
    ['{{ env.SECRET }}', 'env', ['SECRET']],
    ['{{\n  trigger.a\n}}', 'trigger', ['a']],
  ])('%s', (template, root, path) => {
    expect(parseOne(template)).toEqual({ source: template, root, path, pipes: [] });
  });
});

describe('compileTemplate: pipes and arguments', () => {
  it.each([
    ['{{ trigger.a | upper }}', [{ name: 'upper', args: [] }]],
    [
      '{{trigger.a|trim|lower}}',
      [
        { name: 'trim', args: [] },
        { name: 'lower', args: [] },
      ],
    ],
    ['{{ trigger.a | default: Guest  }}', [{ name: 'default', args: ['Guest'] }]],
    ['{{ trigger.a | default: }}', [{ name: 'default', args: [''] }]],
    ["{{ trigger.a | default:'  spaced  ' }}", [{ name: 'default', args: ['  spaced  '] }]],
    ["{{ trigger.a | default:'a:b|c}}' }}", [{ name: 'default', args: ['a:b|c}}'] }]],
    ['{{ trigger.a | default:"say \\"hi\\"" }}', [{ name: 'default', args: ['say "hi"'] }]],
    // The last argument a pipe takes runs to the next `|`, colons and all.
    ['{{ trigger.a | default:https://example.com }}', [{ name: 'default', args: ['https://example.com'] }]],
    ['{{ trigger.at | date:Y-m-d H:i:s }}', [{ name: 'date', args: ['Y-m-d H:i:s'] }]],
    ['{{ trigger.at | date:\\Y\\e\\a\\r: Y }}', [{ name: 'date', args: ['\\Y\\e\\a\\r: Y'] }]],
    ['{{ trigger.a | replace:a:b }}', [{ name: 'replace', args: ['a', 'b'] }]],
    ['{{ trigger.a | replace:a:b:c }}', [{ name: 'replace', args: ['a', 'b:c'] }]],
    ["{{ trigger.a | replace:':':'|' }}", [{ name: 'replace', args: [':', '|'] }]],
    ['{{ trigger.a | replace:x }}', [{ name: 'replace', args: ['x'] }]],
    [
      "{{ trigger.a | join:', ' | upper }}",
      [
        { name: 'join', args: [', '] },
        { name: 'upper', args: [] },
      ],
    ],
    ['{{ trigger.a | truncate:10:… }}', [{ name: 'truncate', args: ['10', '…'] }]],
    ['{{ trigger.a | round }}', [{ name: 'round', args: [] }]],
    // An unknown pipe splits at every colon; the save-time check rejects it anyway.
    ['{{ trigger.a | nope:a:b:c }}', [{ name: 'nope', args: ['a', 'b', 'c'] }]],
    ['{{ trigger.a | upper:x }}', [{ name: 'upper', args: ['x'] }]],
  ])('%s', (template, pipes) => {
    expect(parseOne(template)).toMatchObject({ root: 'trigger', pipes });
  });
});

describe('compileTemplate: malformed expressions', () => {
  it.each([
    ['{{}}', 'expected a root'],
    ['{{ }}', 'expected a root'],
    ['{{ trigger. }}', 'field name after "."'],
    ['{{ trigger[x] }}', 'expected an index'],
    ['{{ trigger[0 }}', 'expected "]"'],
    ['{{ trigger[-1] }}', 'expected an index'],
    ['{{ trigger[99999999999999999999] }}', 'too large'],
    ['{{ trigger | }}', 'pipe name'],
    ['{{ trigger | 1x }}', 'pipe name'],
    ['{{ trigger.a b }}', 'unexpected "b"'],
    ['{{ trigger.a + 1 }}', 'unexpected "+"'],
    ["{{ trigger | default:'x':y }}", 'unexpected ":"'],
    ['{{ {trigger} }}', 'expected a root'],
  ])('%s', (template, message) => {
    const found = parseOne(template);
    expect(found).toEqual({ source: template, error: expect.stringContaining(message) });
  });

  it('ends a malformed expression at the next }} and keeps parsing after it', () => {
    const compiled = compileTemplate('a {{ trigger.x y }} b {{ trigger.z }}');
    expect(compiled.expressions).toEqual([
      { source: '{{ trigger.x y }}', error: expect.any(String) },
      { source: '{{ trigger.z }}', root: 'trigger', path: ['z'], pipes: [] },
    ]);
  });

  it('reports an unterminated quote inside a closed expression', () => {
    expect(parseOne("{{ trigger | default:'abc }}")).toEqual({
      source: "{{ trigger | default:'abc }}",
      error: expect.stringContaining('unterminated'),
    });
  });

  it('reports an unclosed {{ and keeps it as text', () => {
    const compiled = compileTemplate('Hello {{ trigger.name');
    expect(compiled.expressions).toEqual([
      { source: '{{ trigger.name', error: expect.stringContaining('unclosed') },
    ]);
    expect(compiled.parts).toEqual([{ kind: 'text', text: 'Hello {{ trigger.name' }]);
  });
});

describe('compileTemplate: parts', () => {
  it('splits text and expressions and marks a lone expression as single', () => {
    expect(compileTemplate('{{ trigger.a }}').single).toBe(true);
    expect(compileTemplate(' {{ trigger.a }}').single).toBe(false);
    expect(compileTemplate('{{ trigger.a }}{{ trigger.b }}').single).toBe(false);
    expect(compileTemplate('plain').single).toBe(false);
    expect(compileTemplate('a{{trigger.b}}c').parts).toEqual([
      { kind: 'text', text: 'a' },
      {
        kind: 'expression',
        expression: { source: '{{trigger.b}}', root: 'trigger', path: ['b'], pipes: [] },
      },
      { kind: 'text', text: 'c' },
    ]);
  });

  it('reads \\{{ as literal braces', () => {
    const compiled = compileTemplate('\\{{ not.an.expression }} but {{ trigger.x }}');
    expect(compiled.expressions).toHaveLength(1);
    expect(compiled.parts[0]).toEqual({ kind: 'text', text: '{{ not.an.expression }} but ' });
  });

  it('leaves a stray }} as text', () => {
    expect(compileTemplate('a }} b').parts).toEqual([{ kind: 'text', text: 'a }} b' }]);
  });

  it('compiles each template once and forgets the oldest beyond 1,000 templates', () => {
    const first = compileTemplate('{{ trigger.cached }}');
    expect(compileTemplate('{{ trigger.cached }}')).toBe(first);
    for (let i = 0; i < 1_000; i++) compileTemplate(`{{ trigger.filler${i} }}`);
    const again = compileTemplate('{{ trigger.cached }}');
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it('does not cache very long templates', () => {
    const long = `${'x'.repeat(20_000)}{{ trigger.a }}`;
    expect(compileTemplate(long)).not.toBe(compileTemplate(long));
  });
});

describe('findExpressions', () => {
  it('finds expressions in strings nested in objects and arrays, never in keys', () => {
    const config = {
      url: 'https://x/{{ trigger.id }}',
      '{{ trigger.key }}': 'plain',
      headers: { Authorization: 'Bearer {{ nodes.login.token | trim }}' },
      assignments: [{ key: 'k', value: '{{ loop.item }} and {{ bad + }}' }],
      count: 3,
      flag: null,
    };
    expect(findExpressions(config)).toEqual([
      { source: '{{ trigger.id }}', root: 'trigger', path: ['id'], pipes: [] },
      {
        source: '{{ nodes.login.token | trim }}',
        root: 'nodes',
        path: ['login', 'token'],
        pipes: [{ name: 'trim', args: [] }],
      },
      { source: '{{ loop.item }}', root: 'loop', path: ['item'], pipes: [] },
      { source: '{{ bad + }}', error: expect.stringContaining('unexpected "+"') },
    ]);
  });

  it('accepts a bare string and values without strings', () => {
    expect(findExpressions('{{ trigger }}')).toHaveLength(1);
    expect(findExpressions(42)).toEqual([]);
    expect(findExpressions(null)).toEqual([]);
    expect(findExpressions({ a: [1, true, { b: 'no braces' }] })).toEqual([]);
  });

  it('returns copies: changing a result does not change the cached template', () => {
    const [found] = findExpressions('{{ trigger.copy | default:x }}');
    if (found === undefined || 'error' in found) throw new Error('expected a parsed expression');
    found.path.push('mutated');
    found.pipes[0]?.args.push('mutated');
    expect(findExpressions('{{ trigger.copy | default:x }}')).toEqual([
      {
        source: '{{ trigger.copy | default:x }}',
        root: 'trigger',
        path: ['copy'],
        pipes: [{ name: 'default', args: ['x'] }],
      },
    ]);
  });
});
