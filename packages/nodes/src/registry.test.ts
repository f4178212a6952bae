import type { Graph, GraphEdge, GraphNode } from '@weft/graph';
import { describe, expect, it } from 'vitest';
import { getNodeEvaluator } from './evaluators';
import {
  canonicalNodeType,
  describeNodeType,
  getNodeType,
  NODE_TYPE_ALIASES,
  NODE_TYPES,
  outputHandles,
} from './registry';
import { getNodeRunner } from './runners';
import { ACTIVITY_NODE_TRAITS, NODE_RUNS_IN, runsInActivity } from './runs-in';
import { validateNodes } from './validate-nodes';

/** DESIGN.md §5: the 15 node types. Their type strings are public API. */
const EXPECTED_TYPES = [
  'action.http_request',
  'action.transform',
  'action.condition',
  'action.switch',
  'action.loop',
  'action.merge',
  'action.delay',
  'action.wait_for_event',
  'action.code',
  'action.email.send',
  'action.chat.send',
  'action.chat.send_template',
  'action.ai.prompt',
  'action.event.publish',
  'action.workflow.execute',
];

/** One valid config per type (the minimum each needs). */
const VALID_CONFIG: Record<string, Record<string, unknown>> = {
  'action.http_request': { url: 'https://example.com/{{trigger.id}}' },
  'action.transform': { assignments: [{ key: 'a', value: '1' }] },
  'action.condition': { conditions: [{ left: '{{trigger.x}}', operator: 'equals', right: '1' }] },
  'action.switch': { value: '{{trigger.kind}}', cases: [{ key: 'a', equals: 'A' }] },
  'action.loop': { items: '{{trigger.items}}' },
  'action.merge': {},
  'action.delay': { duration: '5m' },
  'action.wait_for_event': { event: 'order.paid' },
  'action.code': { code: 'return 1' },
  'action.email.send': { to: 'a@example.com', subject: 'Hi', body: 'Hello' },
  'action.chat.send': { to: '+15551234567', message: 'Hi' },
  'action.chat.send_template': { to: '+15551234567', template_name: 'welcome', language: 'en_US' },
  'action.ai.prompt': { prompt: 'Summarize {{trigger.text}}' },
  'action.event.publish': { event: 'lead.created' },
  'action.workflow.execute': { workflow_id: 'wf_1' },
};

const node = (id: string, type: string, config: Record<string, unknown> = {}): GraphNode => ({
  id,
  type,
  config,
  on_failure: 'continue',
});
const g = (nodes: GraphNode[], edges: GraphEdge[] = []): Graph => ({ nodes, edges });

function definition(type: string) {
  const d = getNodeType(type);
  if (!d) throw new Error(`no node type ${type}`);
  return d;
}

describe('the registry', () => {
  it('holds exactly the 15 node types of DESIGN.md §5, each once', () => {
    const types = NODE_TYPES.map((d) => d.type);
    expect(types).toHaveLength(15);
    expect(new Set(types).size).toBe(15);
    expect([...types].sort()).toEqual([...EXPECTED_TYPES].sort());
  });

  it('finds every type by its id', () => {
    for (const type of EXPECTED_TYPES) expect(getNodeType(type)?.type).toBe(type);
    expect(getNodeType('action.nope')).toBeUndefined();
    expect(getNodeType('')).toBeUndefined();
  });

  it('canonicalizes the email_send alias', () => {
    expect(NODE_TYPE_ALIASES.email_send).toBe('action.email.send');
    expect(canonicalNodeType('email_send')).toBe('action.email.send');
    expect(canonicalNodeType('action.email.send')).toBe('action.email.send');
    expect(canonicalNodeType('action.transform')).toBe('action.transform');
    expect(getNodeType('email_send')).toBe(getNodeType('action.email.send'));
  });

  it("the interpreter's zod-free table agrees with every definition on where it runs", () => {
    for (const d of NODE_TYPES) expect(NODE_RUNS_IN[d.type], d.type).toBe(d.runsIn);
    for (const [alias, target] of Object.entries(NODE_TYPE_ALIASES)) {
      expect(NODE_RUNS_IN[alias], alias).toBe(getNodeType(target)?.runsIn);
    }
    expect(Object.keys(NODE_RUNS_IN).sort()).toEqual(
      [...NODE_TYPES.map((d) => d.type), ...Object.keys(NODE_TYPE_ALIASES)].sort(),
    );
    expect(runsInActivity('action.http_request')).toBe(true);
    expect(runsInActivity('action.transform')).toBe(false);
    expect(runsInActivity('constructor')).toBe(false);
  });

  it('every activity type has a runner and traits; every workflow type none; evaluators are pure types', () => {
    for (const d of NODE_TYPES) {
      const activity = d.runsIn === 'activity';
      expect(getNodeRunner(d.type) !== undefined, d.type).toBe(activity);
      expect(Object.hasOwn(ACTIVITY_NODE_TRAITS, d.type), d.type).toBe(activity);
      if (getNodeEvaluator(d.type)) expect(d.runsIn, d.type).toBe('workflow');
    }
    expect(getNodeRunner('email_send')).toBe(getNodeRunner('action.email.send'));
    expect(getNodeRunner('constructor')).toBeUndefined();
    expect(getNodeEvaluator('toString')).toBeUndefined();
  });

  it('every alias points at a registered type', () => {
    for (const target of Object.values(NODE_TYPE_ALIASES)) expect(getNodeType(target)).toBeDefined();
  });

  it('has a sample valid config for every type (guards this test file)', () => {
    for (const type of EXPECTED_TYPES) {
      const parsed = definition(type).config.safeParse(VALID_CONFIG[type]);
      expect(parsed.success, `${type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });
});

describe('describeNodeType', () => {
  it.each(EXPECTED_TYPES)('%s has metadata and an object JSON Schema for its config', (type) => {
    const d = describeNodeType(definition(type));
    expect(d.type).toBe(type);
    expect(d.name.length).toBeGreaterThan(0);
    expect(d.description.length).toBeGreaterThan(0);
    expect(['action', 'logic', 'flow', 'messaging', 'ai', 'data']).toContain(d.category);
    const schema = d.config_schema as { type?: unknown; properties?: Record<string, unknown> };
    expect(schema.type, `${type}: config_schema is ${JSON.stringify(schema)}`).toBe('object');
    expect(schema.properties).toBeTypeOf('object');
    expect(Object.keys(schema.properties ?? {}).length).toBeGreaterThan(0);
    expect(d.output_schema).toBeTypeOf('object');
    expect(d.ports.inputs).toEqual(['main']);
  });

  it('names the required config fields', () => {
    const http = describeNodeType(definition('action.http_request')).config_schema as {
      required?: string[];
      properties: Record<string, unknown>;
    };
    expect(http.required).toContain('url');
    expect(http.properties).toHaveProperty('method');
    expect(http.properties).toHaveProperty('headers');
  });

  it('describes switch ports as coming from the config cases', () => {
    expect(describeNodeType(definition('action.switch')).ports.outputs).toEqual({
      from_config: 'cases[].key',
      plus: ['default'],
    });
    expect(describeNodeType(definition('action.condition')).ports.outputs).toEqual(['true', 'false']);
  });

  it('is JSON-serializable (served by GET /node-types)', () => {
    for (const d of NODE_TYPES) expect(() => JSON.stringify(describeNodeType(d))).not.toThrow();
  });
});

describe('outputHandles', () => {
  it('condition has true and false', () => {
    expect(outputHandles(definition('action.condition'), VALID_CONFIG['action.condition'])).toEqual([
      'true',
      'false',
    ]);
  });

  it('switch has one handle per case key, plus default', () => {
    const config = {
      value: '{{trigger.kind}}',
      cases: [
        { key: 'gold', equals: 'g' },
        { key: 'silver', equals: 's' },
      ],
    };
    expect(outputHandles(definition('action.switch'), config)).toEqual(['gold', 'silver', 'default']);
  });

  it('switch with an invalid config has only default', () => {
    expect(outputHandles(definition('action.switch'), { value: 'x' })).toEqual(['default']);
  });

  it('loop has each and done', () => {
    expect(outputHandles(definition('action.loop'), VALID_CONFIG['action.loop'])).toEqual(['each', 'done']);
  });

  it('ordinary nodes have a single output', () => {
    for (const type of ['action.transform', 'action.http_request', 'action.email.send']) {
      expect(outputHandles(definition(type), VALID_CONFIG[type])).toHaveLength(1);
    }
  });

  it('returns a copy: callers cannot change the definition', () => {
    const handles = outputHandles(definition('action.condition'), {});
    handles.push('hacked');
    expect(outputHandles(definition('action.condition'), {})).toEqual(['true', 'false']);
  });
});

describe('validateNodes', () => {
  it('accepts a valid graph and returns canonical types and defaulted configs', () => {
    const { graph, issues } = validateNodes(
      g([
        node('mail', 'email_send', VALID_CONFIG['action.email.send']),
        node('req', 'action.http_request', { url: 'https://x.test' }),
      ]),
    );
    expect(issues).toEqual([]);
    expect(graph.nodes[0]?.type).toBe('action.email.send');
    expect(graph.nodes[1]?.config).toMatchObject({ method: 'GET', fail_on_status: true, timeout_ms: 30_000 });
  });

  it('reports a config problem at nodes.<i>.config.<field>', () => {
    const { issues } = validateNodes(
      g([
        node('ok', 'action.transform', VALID_CONFIG['action.transform']),
        node('req', 'action.http_request', {}),
      ]),
    );
    expect(issues.map((i) => i.path)).toContainEqual(['nodes', 1, 'config', 'url']);
    expect(issues.every((i) => i.path[1] === 1)).toBe(true);
  });

  it('reports nested config paths with numeric indexes', () => {
    const { issues } = validateNodes(
      g([
        node('t', 'action.transform', {
          assignments: [
            { key: 'a', value: 'x' },
            { key: '', value: 'y' },
          ],
        }),
      ]),
    );
    expect(issues.map((i) => i.path)).toEqual([['nodes', 0, 'config', 'assignments', 1, 'key']]);
  });

  it('reports a bad header value at its path', () => {
    const { issues } = validateNodes(
      g([
        node('req', 'action.http_request', { url: 'https://x.test', headers: { 'X-A': 'a\r\nInjected: 1' } }),
      ]),
    );
    expect(issues.map((i) => i.path)).toEqual([['nodes', 0, 'config', 'headers', 'X-A']]);
  });

  it('reports an unknown type at nodes.<i>.type', () => {
    const { issues } = validateNodes(g([node('x', 'action.teleport')]));
    expect(issues).toEqual([
      { path: ['nodes', 0, 'type'], message: expect.stringContaining('action.teleport') },
    ]);
  });

  it('refuses a source_handle the node does not have', () => {
    const { issues } = validateNodes(
      g(
        [
          node('c', 'action.condition', VALID_CONFIG['action.condition']),
          node('t', 'action.transform', VALID_CONFIG['action.transform']),
        ],
        [{ source: 'c', target: 't', source_handle: 'maybe' }],
      ),
    );
    expect(issues).toEqual([
      { path: ['edges', 0, 'source_handle'], message: expect.stringContaining('maybe') },
    ]);
  });

  it('requires a source_handle on an edge leaving a node with several outputs', () => {
    const { issues } = validateNodes(
      g(
        [
          node('l', 'action.loop', VALID_CONFIG['action.loop']),
          node('t', 'action.transform', VALID_CONFIG['action.transform']),
        ],
        [{ source: 'l', target: 't' }],
      ),
    );
    expect(issues.map((i) => i.path)).toEqual([['edges', 0, 'source_handle']]);
    expect(issues[0]?.message).toMatch(/each.*done/);
  });

  it('accepts valid handles: condition true/false, switch case and default, loop each/done', () => {
    const t = (id: string) => node(id, 'action.transform', VALID_CONFIG['action.transform']);
    const { issues } = validateNodes(
      g(
        [
          node('c', 'action.condition', VALID_CONFIG['action.condition']),
          node('s', 'action.switch', { value: 'x', cases: [{ key: 'gold', equals: 'g' }] }),
          node('l', 'action.loop', VALID_CONFIG['action.loop']),
          t('t1'),
          t('t2'),
          t('t3'),
        ],
        [
          { source: 'c', target: 't1', source_handle: 'true' },
          { source: 'c', target: 't2', source_handle: 'false' },
          { source: 's', target: 't1', source_handle: 'gold' },
          { source: 's', target: 't2', source_handle: 'default' },
          { source: 'l', target: 't1', source_handle: 'each' },
          { source: 'l', target: 't3', source_handle: 'done' },
          { source: 't1', target: 't3' },
        ],
      ),
    );
    expect(issues).toEqual([]);
  });

  it('refuses a switch handle that is not one of its case keys', () => {
    const { issues } = validateNodes(
      g(
        [
          node('s', 'action.switch', { value: 'x', cases: [{ key: 'gold', equals: 'g' }] }),
          node('t', 'action.transform', VALID_CONFIG['action.transform']),
        ],
        [{ source: 's', target: 't', source_handle: 'silver' }],
      ),
    );
    expect(issues.map((i) => i.path)).toEqual([['edges', 0, 'source_handle']]);
  });

  it('refuses a true/false handle on a node with a single output', () => {
    const { issues } = validateNodes(
      g(
        [
          node('a', 'action.transform', VALID_CONFIG['action.transform']),
          node('b', 'action.transform', VALID_CONFIG['action.transform']),
        ],
        [{ source: 'a', target: 'b', source_handle: 'true' }],
      ),
    );
    expect(issues.map((i) => i.path)).toEqual([['edges', 0, 'source_handle']]);
  });
});
