import { describe, expect, it } from 'vitest';
import { applyPipe, checkPipeCall, PIPE_NAMES, PIPE_USAGE, UnknownPipeError } from './pipes';
import { renderTemplate } from './render';
import type { ExpressionScope, RenderOptions } from './scope';

const options: RenderOptions = { now: new Date('2024-02-29T13:05:09.123Z'), timezone: 'UTC' };

/** Renders `{{ trigger.v | <pipes> }}` with `v` as the input, so each row reads as input → output. */
function pipe(input: unknown, pipes: string, renderOptions: RenderOptions = options): unknown {
  const scope: ExpressionScope = {
    trigger: { v: input },
    nodes: {},
    execution: { id: 'e', workflow_id: 'w', started_at: '2024-02-29T13:05:09.123Z' },
  };
  return renderTemplate(`{{ trigger.v | ${pipes} }}`, scope, renderOptions);
}

type Row = [input: unknown, pipes: string, expected: unknown];

const table: Record<string, Row[]> = {
  upper: [
    ['Ada', 'upper', 'ADA'],
    ['straße', 'upper', 'STRASSE'],
    [12, 'upper', '12'],
    [null, 'upper', null],
    [undefined, 'upper', null],
  ],
  lower: [
    ['ADA Lovelace', 'lower', 'ada lovelace'],
    [true, 'lower', 'true'],
    [null, 'lower', null],
  ],
  trim: [
    ['  padded \n', 'trim', 'padded'],
    ['', 'trim', ''],
    [null, 'trim', null],
  ],
  default: [
    [null, 'default:Guest', 'Guest'],
    [undefined, 'default:Guest', 'Guest'],
    ['Ada', 'default:Guest', 'Ada'],
    ['', 'default:Guest', ''], // only null and undefined are replaced
    [0, 'default:5', 0],
    [false, 'default:yes', false],
    [null, "default:'a: b | c'", 'a: b | c'],
    [null, 'default:https://example.com/x?y=1', 'https://example.com/x?y=1'],
    [null, 'default:', ''],
    [null, 'default:0', '0'], // the fallback is text; add `| number` for a number
    [null, 'default:0 | number', 0],
  ],
  date: [
    ['2024-02-29T13:05:09.123Z', 'date:Y-m-d H:i:s', '2024-02-29 13:05:09'],
    [1709211909123, 'date:c', '2024-02-29T13:05:09+00:00'],
    [new Date(1709211909123), 'date:U', '1709211909'],
    ['now', 'date:Y', '2024'],
    ['not a date', 'date:Y', null],
    [null, 'date:Y', null],
    [{}, 'date:Y', null],
    [null, 'date:Y | default:never', 'never'],
  ],
  json: [
    [{ a: [1, 'x'] }, 'json', '{"a":[1,"x"]}'],
    ['text', 'json', '"text"'],
    [null, 'json', 'null'],
    [undefined, 'json', 'null'],
    [3.5, 'json', '3.5'],
  ],
  length: [
    ['héllo', 'length', 5],
    ['👍🏽', 'length', 2], // code points, not UTF-16 units
    [[1, 2, 3], 'length', 3],
    [{ a: 1, b: 2 }, 'length', 2],
    [null, 'length', 0],
    [12345, 'length', 5],
  ],
  number: [
    ['42', 'number', 42],
    [' 3.5 ', 'number', 3.5],
    ['1e3', 'number', 1000],
    [7, 'number', 7],
    [true, 'number', 1],
    ['abc', 'number', null],
    ['', 'number', null],
    [[], 'number', null],
    [null, 'number', null],
  ],
  round: [
    [1.23456, 'round:2', 1.23],
    [2.5, 'round', 3],
    [-2.5, 'round', -3], // half away from zero, as PHP
    [1.005, 'round:2', 1.01],
    ['2.675', 'round:2', 2.68],
    [1234.5, 'round:-2', 1200],
    [-0.4, 'round', 0],
    [1e21, 'round:2', 1e21],
    ['x', 'round', null],
    [null, 'round', null],
    [3.7, 'round:abc', 4], // a bad argument (refused at save time) falls back to 0 decimals
  ],
  join: [
    [['a', 'b', 'c'], 'join', 'a,b,c'],
    [['a', 'b'], "join:', '", 'a, b'],
    [['a', null, 1, { b: 2 }], 'join:-', 'a--1-{"b":2}'],
    [['a', 'b'], 'join:', 'ab'],
    ['already text', 'join', 'already text'],
    [null, 'join', null],
  ],
  split: [
    ['a,b,c', 'split', ['a', 'b', 'c']],
    ['a b  c', "split:' '", ['a', 'b', '', 'c']],
    ['a::b', 'split:::', ['a', 'b']], // the one argument may itself be colons
    ['añ👍', "split:''", ['a', 'ñ', '👍']],
    [['x'], 'split', ['x']],
    [12, 'split', ['12']],
    [null, 'split', null],
  ],
  first: [
    [[1, 2, 3], 'first', 1],
    [[], 'first', null],
    ['👍ok', 'first', '👍'],
    ['', 'first', null],
    [{ a: 1 }, 'first', null],
    [null, 'first', null],
  ],
  last: [
    [[1, 2, 3], 'last', 3],
    [[], 'last', null],
    ['ok👍', 'last', '👍'],
    ['abc', 'last', 'c'],
    [42, 'last', null],
  ],
  replace: [
    ['a-b-c', 'replace:-:+', 'a+b+c'],
    ['a.b', 'replace:.:', 'ab'],
    ['a.b', 'replace:.', 'ab'],
    ['x: y', "replace:': ':'='", 'x=y'],
    ['a|b', "replace:'|':/", 'a/b'],
    ['(a+)+$', 'replace:(a+)+$:safe', 'safe'], // plain text, never a regular expression
    ['abc', "replace:'':x", 'abc'],
    [null, 'replace:a:b', null],
  ],
  truncate: [
    ['Hello world', 'truncate:5', 'Hello'],
    ['Hello world', 'truncate:5:…', 'Hello…'],
    ['Hello', 'truncate:5:…', 'Hello'],
    ['👍👍👍', 'truncate:2', '👍👍'],
    ['abc', 'truncate:0', ''],
    ['abc', 'truncate:x', 'abc'],
    [null, 'truncate:3', null],
  ],
  urlencode: [
    ['a b&c=d/é', 'urlencode', 'a%20b%26c%3Dd%2F%C3%A9'],
    ['\uD800', 'urlencode', '%EF%BF%BD'], // a lone surrogate would make encodeURIComponent throw
    [5, 'urlencode', '5'],
    [null, 'urlencode', null],
  ],
};

describe('pipes', () => {
  it('lists every pipe of DESIGN §6 in PIPE_NAMES, and the table covers each', () => {
    expect([...PIPE_NAMES].sort()).toEqual(
      [
        'upper',
        'lower',
        'trim',
        'default',
        'date',
        'json',
        'length',
        'number',
        'round',
        'join',
        'split',
        'first',
        'last',
        'replace',
        'truncate',
        'urlencode',
      ].sort(),
    );
    expect(Object.keys(table).sort()).toEqual([...PIPE_NAMES].sort());
  });

  for (const [name, rows] of Object.entries(table)) {
    describe(name, () => {
      it.each(rows)('%j | %s → %j', (input, pipes, expected) => {
        expect(pipe(input, pipes)).toEqual(expected);
      });
    });
  }

  it('chains left to right', () => {
    expect(pipe('  a,b ', 'trim | split | last | upper')).toBe('B');
    expect(pipe(null, 'upper | default:none | upper')).toBe('NONE');
    expect(pipe(['x', 'y'], 'join:- | length')).toBe(3);
  });

  it('renders dates in the zone of the render options', () => {
    const kolkata = { ...options, timezone: 'Asia/Kolkata' };
    expect(pipe('2024-02-29T13:05:09Z', 'date:H:i T', kolkata)).toBe('18:35 GMT+5:30');
    expect(pipe('2024-02-29', 'date:D, d M Y H:i', kolkata)).toBe('Thu, 29 Feb 2024 00:00');
  });

  it('throws UnknownPipeError naming an unknown pipe, whatever the input', () => {
    expect(() => pipe('x', 'uper')).toThrow(UnknownPipeError);
    expect(() => pipe(null, 'upper | nope:1')).toThrow(
      'unknown pipe "nope" in {{ trigger.v | upper | nope:1 }}',
    );
    expect(() => pipe('x', 'constructor')).toThrow(UnknownPipeError);
    expect(() => pipe('x', 'toString')).toThrow(UnknownPipeError);
  });

  it('never throws from a known pipe, even on hostile input', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap');
        },
      },
    );
    for (const name of PIPE_NAMES) {
      expect(() => applyPipe(hostile, { name, args: ['1', '2'] }, options, '{{…}}')).not.toThrow();
      expect(() => applyPipe(10n, { name, args: [] }, options, '{{…}}')).not.toThrow();
    }
  });
});

describe('checkPipeCall', () => {
  it.each([
    [{ name: 'upper', args: [] }, undefined],
    [{ name: 'default', args: [''] }, undefined],
    [{ name: 'round', args: [] }, undefined],
    [{ name: 'round', args: ['-2'] }, undefined],
    [{ name: 'replace', args: ['a'] }, undefined],
    [{ name: 'truncate', args: ['10', '…'] }, undefined],
    [{ name: 'uper', args: [] }, 'unknown pipe "uper"; pipes are: upper, lower'],
    [{ name: 'upper', args: ['x'] }, 'pipe "upper" takes no argument'],
    [{ name: 'default', args: [] }, 'pipe "default" needs an argument'],
    [{ name: 'date', args: [] }, 'pipe "date" needs an argument'],
    [{ name: 'truncate', args: [] }, 'pipe "truncate" needs an argument'],
    [{ name: 'round', args: ['two'] }, 'round: the number of decimals must be a whole number'],
    [{ name: 'round', args: ['99'] }, 'from -15 to 15'],
    [{ name: 'truncate', args: ['-1'] }, 'truncate: the length must be a whole number'],
    [{ name: 'replace', args: [''] }, 'cannot be empty'],
    [{ name: 'replace', args: ['a', 'b', 'c'] }, 'takes at most 2 arguments'],
  ])('%j', (call, problem) => {
    if (problem === undefined) expect(checkPipeCall(call)).toBeUndefined();
    else expect(checkPipeCall(call)).toContain(problem);
  });
});

describe('PIPE_USAGE (the editor autocomplete)', () => {
  it('describes exactly the pipes that exist, each usage starting with its name', () => {
    expect(Object.keys(PIPE_USAGE).sort()).toEqual([...PIPE_NAMES].sort());
    for (const [name, { usage }] of Object.entries(PIPE_USAGE)) expect(usage.split(':')[0]).toBe(name);
  });
});
