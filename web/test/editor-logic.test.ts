import { describe, expect, it } from 'vitest';
import { edgeKey } from '../src/lib/canvas/mapper';
import {
  applySuggestion,
  caretSpot,
  expressionParts,
  previewExpression,
  suggest,
} from '../src/lib/editor/expressions';
import {
  connectionProblem,
  copyFragment,
  fieldErrorsByNode,
  type Graph,
  parseFragment,
  pasteFragment,
  removeElements,
  uniqueNodeId,
} from '../src/lib/editor/graph-edits';
import { History } from '../src/lib/editor/history';

const graph: Graph = {
  nodes: [
    { id: 'fetch', type: 'action.http_request', config: { url: 'https://x.test' }, position: { x: 0, y: 0 } },
    {
      id: 'shape',
      type: 'action.transform',
      config: { assignments: [{ key: 'a', value: '{{ nodes.fetch.body.a }}' }] },
      position: { x: 300, y: 0 },
    },
    { id: 'mail', type: 'action.email.send', config: {}, position: { x: 600, y: 0 } },
  ],
  edges: [
    { source: 'fetch', target: 'shape' },
    { source: 'shape', target: 'mail' },
  ],
};

describe('undo/redo history', () => {
  it('steps back and forward across ten edits, and a new edit drops the redo branch', () => {
    const history = new History(0);
    for (let i = 1; i <= 10; i++) history.push(i);
    for (let i = 9; i >= 0; i--) expect(history.undo()).toBe(i);
    expect(history.undo()).toBeUndefined();
    expect(history.redo()).toBe(1);
    expect(history.redo()).toBe(2);
    history.push(42);
    expect(history.canRedo).toBe(false);
    expect(history.undo()).toBe(2);
  });
  it('keeps at most its limit of steps', () => {
    const history = new History(0, 3);
    for (let i = 1; i <= 10; i++) history.push(i);
    expect([history.undo(), history.undo(), history.undo(), history.undo()]).toEqual([9, 8, 7, undefined]);
  });
});

describe('graph edits', () => {
  it('names new nodes after their type without reusing an id', () => {
    expect(uniqueNodeId('action.http_request', new Set())).toBe('http_request');
    expect(uniqueNodeId('action.http_request', new Set(['http_request', 'http_request_2']))).toBe(
      'http_request_3',
    );
    expect(uniqueNodeId('action.chat.send', new Set())).toBe('chat_send');
  });

  it('copies the selection with its inner edges, and pastes with fresh ids and references that follow', () => {
    const fragment = copyFragment(graph, new Set(['fetch', 'shape']));
    expect(fragment.edges).toEqual([{ source: 'fetch', target: 'shape' }]);
    const text = JSON.stringify(fragment);
    const parsed = parseFragment(text);
    expect(parsed).not.toBeNull();
    const { graph: pasted, added } = pasteFragment(graph, parsed as NonNullable<typeof parsed>);
    expect(added).toEqual(['http_request', 'transform']);
    expect(pasted.nodes).toHaveLength(5);
    const shape2 = pasted.nodes.find((n) => n.id === 'transform');
    expect(JSON.stringify(shape2?.config)).toContain('nodes.http_request.body.a');
    expect(shape2?.position).toEqual({ x: 348, y: 48 });
    expect(pasted.edges.at(-1)).toEqual({ source: 'http_request', target: 'transform' });
    // The originals are untouched.
    expect(JSON.stringify(pasted.nodes[1]?.config)).toContain('nodes.fetch.body.a');
  });

  it('keeps ids when pasting into another workflow where they are free', () => {
    const fragment = copyFragment(graph, new Set(['fetch']));
    expect(pasteFragment({ nodes: [], edges: [] }, fragment).added).toEqual(['fetch']);
  });

  it('refuses clipboard text that is not a fragment', () => {
    expect(parseFragment('hello')).toBeNull();
    expect(parseFragment('{"kind":"weft/nodes","nodes":[{"id":1}],"edges":[]}')).toBeNull();
    expect(parseFragment('{"nodes":[],"edges":[]}')).toBeNull();
  });

  it('removes nodes with their edges, and single edges', () => {
    const withoutShape = removeElements(graph, new Set(['shape']), new Set(), edgeKey);
    expect(withoutShape.edges).toEqual([]);
    const withoutEdge = removeElements(
      graph,
      new Set(),
      new Set([edgeKey({ source: 'fetch', target: 'shape' })]),
      edgeKey,
    );
    expect(withoutEdge.edges).toEqual([{ source: 'shape', target: 'mail' }]);
  });

  it('refuses self-connections, duplicates and cycles', () => {
    expect(connectionProblem(graph, 'fetch', 'fetch')).toMatch(/itself/);
    expect(connectionProblem(graph, 'fetch', 'shape')).toMatch(/already/);
    expect(connectionProblem(graph, 'mail', 'fetch')).toMatch(/loop/);
    expect(connectionProblem(graph, 'fetch', 'mail')).toBeNull();
  });

  it("maps the API's 422 fields onto nodes and their fields", () => {
    const { byNode, other } = fieldErrorsByNode(
      {
        'nodes.1.config.assignments.0.value': ['bad'],
        'nodes.2': ['unknown type'],
        trigger_config: ['x'],
        'nodes.9.config': ['y'],
      },
      graph.nodes,
    );
    expect(byNode.get('shape')).toEqual({ 'config.assignments.0.value': ['bad'] });
    expect(byNode.get('mail')).toEqual({ _: ['unknown type'] });
    expect(other).toEqual({ trigger_config: ['x'], 'nodes.9.config': ['y'] });
  });
});

describe('expression autocomplete', () => {
  const context = {
    upstream: [{ id: 'fetch', name: 'Fetch the order', fields: ['status', 'body'] }],
    triggerFields: ['email', 'name'],
    insideLoop: false,
  };
  const at = (text: string) => suggest(text, text.length, context).map((s) => s.label);

  it('offers roots, then fields, only inside an open {{', () => {
    expect(at('Hello ')).toEqual([]);
    expect(at('Hello {{ ')).toEqual(['trigger', 'nodes', 'execution']);
    expect(at('Hello {{ tr')).toEqual(['trigger']);
    expect(at('{{ trigger.')).toEqual(['trigger.email', 'trigger.name']);
    expect(at('{{ nodes.')).toEqual(['nodes.fetch']);
    expect(at('{{ nodes.fetch.b')).toEqual(['nodes.fetch.body']);
    expect(at('{{ loop.')).toEqual([]);
    expect(suggest('{{ loop.', 8, { ...context, insideLoop: true }).map((s) => s.label)).toEqual([
      'loop.item',
      'loop.index',
      'loop.count',
    ]);
    expect(at('{{ trigger.email }} and ')).toEqual([]);
  });

  it('offers pipes with their arguments after a bar', () => {
    expect(at('{{ trigger.name | ')).toContain('default:<fallback>');
    expect(at('{{ trigger.name | up')).toEqual(['upper']);
    expect(at('{{ trigger.name | default:')).toEqual([]);
  });

  it('inserts the choice and closes the expression', () => {
    const text = 'Hi {{ trigger.em';
    const [choice] = suggest(text, text.length, context);
    expect(applySuggestion(text, text.length, choice as NonNullable<typeof choice>)).toEqual({
      text: 'Hi {{ trigger.email }}',
      caret: 'Hi {{ trigger.email }}'.length,
    });
    const nested = '{{ nod';
    const [root] = suggest(nested, nested.length, context);
    expect(applySuggestion(nested, nested.length, root as NonNullable<typeof root>).text).toBe('{{ nodes.');
    expect(caretSpot('{{ a }} {{ b', 12)).toEqual({ kind: 'path', word: 'b', from: 11 });
  });

  it('splits text into plain and expression parts for highlighting', () => {
    expect(expressionParts('Hi {{ trigger.name }}!')).toEqual([
      { text: 'Hi ', expression: false },
      { text: '{{ trigger.name }}', expression: true },
      { text: '!', expression: false },
    ]);
  });
});

describe('autocomplete to any depth, and the live preview', () => {
  const data = {
    trigger: { customer: { name: 'Ada', tags: ['vip', 'new'] } },
    nodes: { fetch: { status: 200, body: { items: [{ sku: 'A1', qty: 2 }] } } },
  };
  const context = {
    upstream: [{ id: 'fetch', name: 'Fetch the order', fields: ['status', 'body'] }],
    triggerFields: ['customer'],
    insideLoop: false,
    data,
  };
  const at = (text: string) => suggest(text, text.length, context).map((s) => s.label);

  it("walks the step's data: nested objects, then an array's first item, then its fields", () => {
    expect(at('{{ trigger.customer.')).toEqual(['trigger.customer.name', 'trigger.customer.tags']);
    expect(at('{{ nodes.fetch.body.')).toEqual(['nodes.fetch.body.items']);
    expect(at('{{ nodes.fetch.body.items.')).toEqual(['nodes.fetch.body.items.0']);
    expect(at('{{ nodes.fetch.body.items.0.q')).toEqual(['nodes.fetch.body.items.0.qty']);
    expect(at('{{ nodes.other.x.')).toEqual([]);
    expect(suggest('{{ trigger.customer.', 20, { ...context, data: undefined })).toEqual([]);
  });

  it('previews a field on that data as the engine renders it, with each pipe stage by stage', () => {
    const preview = previewExpression('Hi {{ trigger.customer.tags | first | upper }}!', data);
    expect(preview.value).toBe('Hi VIP!');
    expect(preview.traces[0]?.stages.map((s) => [s.label, s.value])).toEqual([
      ['trigger.customer.tags', ['vip', 'new']],
      ['| first', 'vip'],
      ['| upper', 'VIP'],
    ]);
    expect(previewExpression('{{ nodes.fetch.body.items[0].qty }}', data).value).toBe(2);
    expect(previewExpression('{{ trigger.x | nosuch }}', data).traces[0]?.error).toMatch(/nosuch/);
  });
});

describe('schema-driven node form', () => {
  it('picks an input per field from the JSON Schema', async () => {
    const { describeSchema, defaultFor } = await import('../src/lib/editor/schema-form');
    expect(describeSchema('method', { type: 'string', enum: ['GET', 'POST'] })).toEqual({
      kind: 'enum',
      options: ['GET', 'POST'],
    });
    expect(describeSchema('url', { type: 'string' })).toEqual({ kind: 'text', multiline: false });
    expect(describeSchema('body', { type: 'string' })).toEqual({ kind: 'text', multiline: true });
    expect(describeSchema('credential_id', { type: 'string' })).toEqual({ kind: 'credential' });
    expect(describeSchema('timeout_ms', { type: 'integer' })).toEqual({ kind: 'number' });
    expect(describeSchema('to', { anyOf: [{ type: 'string' }, { type: 'array' }] })).toEqual({
      kind: 'text',
      multiline: false,
    });
    expect(describeSchema('headers', { type: 'object', additionalProperties: { type: 'string' } })).toEqual({
      kind: 'json',
    });
    const item = {
      type: 'object',
      properties: {
        key: { type: 'string' },
        operator: { enum: ['equals', 'contains'] },
        right: { type: 'string' },
      },
      required: ['key', 'operator'],
    };
    expect(describeSchema('conditions', { type: 'array', items: item })).toEqual({ kind: 'list', item });
    expect(defaultFor(item)).toEqual({ key: '', operator: 'equals' });
  });
});

describe('cron in the trigger block', () => {
  it('describes a schedule in words and lists its next fire times in its zone', async () => {
    const { describeCron, formatInZone } = await import('../src/lib/editor/cron');
    const after = new Date('2026-03-27T12:00:00Z'); // a Friday, two days before DST in Berlin
    const described = describeCron('0 8 * * MON-FRI', 'Europe/Berlin', 3, after);
    expect(described?.words).toMatch(/08:00.*Monday through Friday/);
    expect(described?.next.map((d) => d.toISOString())).toEqual([
      '2026-03-30T06:00:00.000Z', // Monday, summer time: 08:00 CEST
      '2026-03-31T06:00:00.000Z',
      '2026-04-01T06:00:00.000Z',
    ]);
    expect(formatInZone(described?.next[0] as Date, 'Europe/Berlin')).toMatch(/Mon.*08:00/);
    expect(describeCron('0 8 * *', 'UTC')).toBeNull();
    expect(describeCron('99 8 * * *', 'UTC')).toBeNull();
  });
});

describe('labels in words', () => {
  it('says field names, list items and coded choices as a person reads them', async () => {
    const { labelOf, itemLabelOf, optionLabelOf } = await import('../src/lib/editor/schema-form');
    expect(labelOf('url')).toBe('URL');
    expect(labelOf('timeout_ms')).toBe('Timeout (ms)');
    expect(labelOf('credential_id')).toBe('Credential');
    expect(labelOf('items_path')).toBe('Items path');
    expect(itemLabelOf('conditions')).toBe('Condition');
    expect(itemLabelOf('assignments')).toBe('Assignment');
    expect(optionLabelOf('gt')).toBe('is greater than');
    expect(optionLabelOf('POST')).toBe('POST');
  });
});

describe('the trigger on the canvas', () => {
  it('is drawn left of the first root with an edge to each root, and never saved', async () => {
    const { toCanvas, fromCanvas } = await import('../src/lib/canvas/mapper');
    const { triggerOnCanvas, TRIGGER_NODE_ID } = await import('../src/lib/canvas/trigger-node');
    const canvas = toCanvas(
      [...graph.nodes, { id: 'other', type: 'action.delay', position: { x: 0, y: 200 } }],
      graph.edges,
    );
    const trigger = triggerOnCanvas(canvas.nodes, canvas.edges, { triggerType: 'manual', detail: '' });
    expect(trigger.node.position).toEqual({ x: -288, y: 0 });
    expect(trigger.edges.map((e) => e.target)).toEqual(['fetch', 'other']);
    const saved = fromCanvas([trigger.node, ...canvas.nodes], [...canvas.edges, ...trigger.edges]);
    expect(saved.nodes.map((n) => n.id)).not.toContain(TRIGGER_NODE_ID);
    expect(saved.edges).toEqual(graph.edges);
  });
});

describe('the readable fit', () => {
  it('centres a graph that fits, and opens a wide one at the minimum zoom from its left edge', async () => {
    const { readableViewport, FIT_MIN_ZOOM } = await import('../src/lib/canvas/fit');
    const small = readableViewport({ x: -288, y: 0, width: 824, height: 76 }, 920, 700);
    expect(small.zoom).toBe(FIT_MIN_ZOOM);
    expect(small.x + -288 * small.zoom).toBeCloseTo((920 - 824 * small.zoom) / 2);
    const wide = readableViewport({ x: -288, y: 0, width: 2600, height: 400 }, 680, 800);
    expect(wide.zoom).toBe(FIT_MIN_ZOOM);
    expect(wide.x + -288 * wide.zoom).toBeCloseTo(48);
    expect(readableViewport({ x: 0, y: 0, width: 248, height: 76 }, 680, 800).zoom).toBe(1);
  });
});
