import { readdirSync } from 'node:fs';
import type { Graph, GraphEdge, GraphNode } from '@weft/graph';
import { describe, expect, it } from 'vitest';
import { runsIn, versionOf } from './define';
import {
  canonicalNodeType,
  describeNodeType,
  getNodeType,
  NODE_TYPE_ALIASES,
  NODE_TYPE_VERSIONS,
  NODE_TYPES,
  nodeTypeVersions,
  outputHandles,
} from './registry';
import { loadNodeRunner } from './runners';
import { isLoop, WORKFLOW_NODE_TYPES, workflowNodeOf } from './runtime';
import { validateNodes } from './validate-nodes';

const TYPES = NODE_TYPES.map((d) => d.type);

/** A sample valid config for the types the tests below build graphs with. */
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
  it('holds each type once per version, and lists the latest version of each', () => {
    const keys = NODE_TYPE_VERSIONS.map((d) => `${d.type}@${versionOf(d)}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(TYPES).size).toBe(TYPES.length);
    for (const d of NODE_TYPES) expect(versionOf(d)).toBe(Math.max(...nodeTypeVersions(d.type)));
  });

  it('finds every type by its id, in any version it has', () => {
    for (const d of NODE_TYPE_VERSIONS) expect(getNodeType(d.type, versionOf(d))).toBe(d);
    for (const type of TYPES) expect(getNodeType(type)?.type).toBe(type);
    expect(getNodeType('action.nope')).toBeUndefined();
    expect(getNodeType('')).toBeUndefined();
    expect(getNodeType('action.transform', 99)).toBeUndefined();
  });

  it('canonicalizes the email_send alias', () => {
    expect(NODE_TYPE_ALIASES.email_send).toBe('action.email.send');
    expect(canonicalNodeType('email_send')).toBe('action.email.send');
    expect(canonicalNodeType('action.email.send')).toBe('action.email.send');
    expect(canonicalNodeType('action.transform')).toBe('action.transform');
    expect(canonicalNodeType('constructor')).toBe('constructor');
    expect(getNodeType('email_send')).toBe(getNodeType('action.email.send'));
  });

  it("lists each definition's workflow.ts in runtime.ts, which the interpreter reads", () => {
    for (const d of NODE_TYPE_VERSIONS) {
      const where = `${d.type}@${versionOf(d)}`;
      if (d.workflow) {
        expect(d.workflow.type, where).toBe(d.type);
        expect(
          workflowNodeOf(d.type, versionOf(d)),
          `${where}: add its workflow.ts export to WORKFLOW_NODE_TYPES in packages/nodes/src/runtime.ts`,
        ).toBe(d.workflow);
      } else {
        expect(workflowNodeOf(d.type, versionOf(d)), `${where} has no workflow.ts`).toEqual({
          type: d.type,
          runsIn: 'activity',
        });
      }
    }
    const registered = new Set(NODE_TYPE_VERSIONS.map((d) => d.workflow));
    for (const w of WORKFLOW_NODE_TYPES)
      expect(registered.has(w), `${w.type}: runtime.ts lists a workflow.ts no definition uses`).toBe(true);
    expect(workflowNodeOf('email_send')).toEqual(workflowNodeOf('action.email.send'));
    expect(workflowNodeOf('constructor').runsIn).toBe('activity');
  });

  it('gives every activity type a runner and no workflow code; every workflow type code and no runner', async () => {
    for (const d of NODE_TYPE_VERSIONS) {
      const where = `${d.type}@${versionOf(d)}`;
      const runner = await loadNodeRunner(d.type, versionOf(d));
      if (runsIn(d) === 'activity') {
        expect(runner?.run, `${where}: give it runner: () => import('./run') in its schema.ts`).toBeTypeOf(
          'function',
        );
      } else {
        expect(runner, where).toBeUndefined();
        const w = d.workflow;
        expect(
          w?.runsIn === 'workflow' && (w.evaluate ?? w.execute),
          `${where}: evaluate or execute`,
        ).toBeTypeOf('function');
      }
    }
    expect(await loadNodeRunner('email_send')).toBe(await loadNodeRunner('action.email.send'));
    expect(await loadNodeRunner('constructor')).toBeUndefined();
  });

  it('a type that loops has the each and done outputs the walk and the editor rely on', () => {
    const loops = NODE_TYPE_VERSIONS.filter((d) => d.workflow && isLoop(d.workflow));
    expect(loops.map((d) => d.type)).toContain('action.loop');
    for (const d of loops) expect(d.outputs, d.type).toEqual(['each', 'done']);
  });

  it('registers the definition of every type folder (every folder but shared/ is a type)', async () => {
    const folders = readdirSync(new URL('.', import.meta.url), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'shared')
      .map((entry) => entry.name);
    expect(folders).toContain('http-request');
    for (const folder of folders) {
      const schema = (await import(`./${folder}/schema.ts`)) as Record<string, unknown>;
      const definitions = Object.values(schema).filter(
        (value): value is { type: string } =>
          typeof value === 'object' && value !== null && 'type' in value && 'config' in value,
      );
      expect(definitions.length, `${folder}/schema.ts defines no node type`).toBeGreaterThan(0);
      for (const d of definitions) {
        expect(
          (NODE_TYPE_VERSIONS as readonly unknown[]).includes(d),
          `${folder}/schema.ts defines ${d.type}: add its line to packages/nodes/src/types.ts`,
        ).toBe(true);
      }
    }
  });

  it('every alias points at a registered type', () => {
    for (const target of Object.values(NODE_TYPE_ALIASES)) expect(getNodeType(target)).toBeDefined();
  });

  it('has a sample valid config for the types these tests use (guards this test file)', () => {
    for (const [type, config] of Object.entries(VALID_CONFIG)) {
      const parsed = definition(type).config.safeParse(config);
      expect(parsed.success, `${type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });
});

describe('describeNodeType', () => {
  it.each(TYPES)('%s has metadata and an object JSON Schema for its config', (type) => {
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
    expect(d.version).toBe(Math.max(...nodeTypeVersions(type)));
    expect(d.previous_versions.map((v) => v.version)).toEqual(nodeTypeVersions(type).slice(0, -1));
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
