import { TRIGGER_TYPES } from '@weft/graph';
import { NODE_TYPES } from '@weft/nodes';
import { allTemplates, TEMPLATE_CATEGORIES, TEMPLATE_REFERENCE, type TemplateFile } from '@weft/templates';
import { describe, expect, it } from 'vitest';
import { EVENT_CATALOG } from '../event-types/catalog';
import { listTemplates, templateWorkflowInput } from './catalog';

// The gallery's contract, checked at build time: a template that would be refused at save, that
// names an unknown node type or pipe, or that carries a secret fails here, not in a user's hands.

const templates = allTemplates();
/** The organization module each node type needs, from its definition. */
const MODULE_OF_NODE = new Map(NODE_TYPES.flatMap((d) => (d.module ? [[d.type, d.module] as const] : [])));

function nodeTypesOf(t: TemplateFile) {
  return templateWorkflowInput(t).nodes.map((n) => n.type);
}

describe('the templates', () => {
  it("are at least the spec's 42, with unique ids and names", () => {
    // The gallery grows with node types (a folder's template.json) and features; it never shrinks.
    expect(templates.length).toBeGreaterThanOrEqual(42);
    expect(new Set(templates.map((t) => t.id)).size).toBe(templates.length);
    expect(new Set(templates.map((t) => t.name)).size).toBe(templates.length);
  });

  it.each(templates.map((t) => [t.id, t] as const))('%s validates as a workflow', (_id, t) => {
    const input = templateWorkflowInput(t);
    expect(input.status).toBe('draft');
    expect(input.nodes.length).toBeGreaterThan(0);
    // Every node is placed: the gallery preview and the editor open it as drawn.
    for (const node of input.nodes) expect(node.position, `${t.id} ${node.id}`).toBeDefined();
    // Every node but the first ones hangs off an edge: no stray nodes in a template.
    const targets = new Set(input.edges.map((e) => e.target));
    const sources = new Set(input.edges.map((e) => e.source));
    for (const node of input.nodes) {
      if (input.nodes.length > 1) expect(targets.has(node.id) || sources.has(node.id), node.id).toBe(true);
    }
  });

  it.each(templates.map((t) => [t.id, t] as const))(
    '%s names exactly the modules its nodes use',
    (_id, t) => {
      const used = [...new Set(nodeTypesOf(t).flatMap((type) => MODULE_OF_NODE.get(type) ?? []))].sort();
      expect([...t.modules].sort()).toEqual(used);
    },
  );

  it('carry no secrets and no organization-specific ids', () => {
    for (const t of templates) {
      const text = JSON.stringify(t.workflow);
      expect(text, t.id).not.toMatch(/credential_id|"secret"|Bearer |whsec_|sk-[A-Za-z0-9]/);
      // A workflow id of the author's organization would point nowhere in the clone.
      expect(text, t.id).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    }
  });

  it('cover every trigger kind, every node type and every category', () => {
    expect(new Set(templates.map((t) => templateWorkflowInput(t).trigger_type))).toEqual(
      new Set(TRIGGER_TYPES),
    );
    // Templates are the gallery's example of every node type and its end-to-end test
    // (temporal/test/templates-e2e.test.ts): a new type needs a step in one of them.
    const usedTypes = new Set(templates.flatMap(nodeTypesOf));
    const unused = NODE_TYPES.map((d) => d.type).filter((type) => !usedTypes.has(type));
    expect(
      unused,
      `no template uses ${unused.join(', ')}: give each a template.json in its folder (packages/nodes/src/<type>/), or add a step of it to a template in packages/templates/data/`,
    ).toEqual([]);
    expect(new Set(templates.map((t) => t.category))).toEqual(new Set(TEMPLATE_CATEGORIES));
  });

  it("cover the spec's event catalog: every built-in event starts or resumes at least one template", () => {
    const listened = new Set<string>();
    for (const t of templates) {
      const input = templateWorkflowInput(t);
      if (input.trigger_type === 'event') listened.add(String(input.trigger_config.event));
      if (input.trigger_type === 'webhook') listened.add('webhook.received');
      if (input.trigger_type === 'polling') listened.add('trigger.polling');
      if (input.trigger_type === 'chat') listened.add('chat.message_received');
      if (input.trigger_type === 'schedule') listened.add('scheduled.*');
      for (const node of input.nodes) {
        if (node.type === 'action.wait_for_event') listened.add(String(node.config.event));
      }
    }
    for (const event of EVENT_CATALOG) expect(listened, event.name).toContain(event.name);
  });

  it('give every event and webhook template sample trigger data (or the catalog has an example)', () => {
    const examples = new Set(EVENT_CATALOG.map((e) => e.name));
    for (const t of templates) {
      const { trigger_type, trigger_config } = t.workflow;
      if (trigger_type === 'webhook' || trigger_type === 'chat')
        expect(t.sample.trigger_payload, t.id).toBeDefined();
      if (trigger_type === 'event' && !examples.has(String(trigger_config.event))) {
        expect(t.sample.trigger_payload, t.id).toBeDefined();
      }
    }
  });

  it('call other templates only by a template: reference to an existing template', () => {
    const ids = new Set(templates.map((t) => t.id));
    for (const t of templates) {
      for (const node of templateWorkflowInput(t).nodes) {
        if (node.type !== 'action.workflow.execute') continue;
        const reference = TEMPLATE_REFERENCE.exec(String(node.config.workflow_id));
        expect(reference?.[1], `${t.id} ${node.id}`).toBeDefined();
        expect(ids, `${t.id} ${node.id}`).toContain(reference?.[1]);
        expect(reference?.[1], `${t.id} calls itself`).not.toBe(t.id);
      }
    }
  });

  it("AI agents' tool workflows are template: references to tool templates", () => {
    const byId = new Map(templates.map((t) => [t.id, t]));
    for (const t of templates) {
      for (const node of templateWorkflowInput(t).nodes) {
        if (node.type !== 'action.ai.agent') continue;
        for (const tool of (node.config.tools ?? []) as { workflow_id?: string }[]) {
          if (tool.workflow_id === undefined) continue;
          const callee = byId.get(TEMPLATE_REFERENCE.exec(tool.workflow_id)?.[1] ?? '');
          expect(callee?.workflow.trigger_type, `${t.id} ${node.id} ${tool.workflow_id}`).toBe('tool');
        }
      }
    }
  });

  it('are found by category and by a word of their text', () => {
    const leads = listTemplates({ category: 'leads' });
    expect(leads.length).toBeGreaterThan(0);
    expect(leads.every((t) => t.category === 'leads')).toBe(true);
    expect(listTemplates({ search: 'WELCOME' }).map((t) => t.id)).toContain('lead-welcome-and-crm-sync');
    expect(listTemplates({ search: 'no template says this' })).toEqual([]);
  });
});
