import { describe, expect, it } from 'vitest';
import { renderTemplate } from './render';
import type { ExpressionScope } from './scope';
import { traceTemplate } from './stages';

const scope: ExpressionScope = {
  trigger: { name: '  ada lovelace ', items: [{ sku: 'a1' }, { sku: 'b2' }] },
  nodes: { fetch: { body: { total: 41.5 } } },
  execution: { id: 'e1', workflow_id: 'w1', started_at: '2026-11-27T10:00:00.000Z' },
};
const options = { now: new Date('2026-11-27T10:00:00Z'), timezone: 'UTC' };

describe('traceTemplate: an expression stage by stage', () => {
  it('gives the path value, then the value after each pipe; the last stage is what render yields', () => {
    const [trace] = traceTemplate('Hi {{ trigger.name | trim | upper }}!', scope, options);
    expect(trace?.stages).toEqual([
      { label: 'trigger.name', value: '  ada lovelace ' },
      { label: '| trim', value: 'ada lovelace' },
      { label: '| upper', value: 'ADA LOVELACE' },
    ]);
    expect(renderTemplate('{{ trigger.name | trim | upper }}', scope, options)).toBe(
      trace?.stages.at(-1)?.value,
    );
  });

  it('labels indexes and pipe arguments as written, and traces every expression of a template', () => {
    const traces = traceTemplate(
      '{{ trigger.items[1].sku }} and {{ nodes.fetch.body.total | default:0 }}',
      scope,
      options,
    );
    expect(traces.map((t) => t.stages.map((s) => s.label))).toEqual([
      ['trigger.items[1].sku'],
      ['nodes.fetch.body.total', '| default:0'],
    ]);
    expect(traces[0]?.stages[0]?.value).toBe('b2');
  });

  it('says why an expression yields null: it does not parse, or a pipe does not exist', () => {
    expect(traceTemplate('{{ trigger.name | nosuchpipe }}', scope, options)[0]?.error).toMatch(/nosuchpipe/);
    expect(traceTemplate('{{ trigger..name }}', scope, options)[0]?.error).toBeTruthy();
    expect(traceTemplate('{{ trigger.missing }}', scope, options)[0]?.stages).toEqual([
      { label: 'trigger.missing', value: null },
    ]);
  });
});
