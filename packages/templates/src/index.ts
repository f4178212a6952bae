import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { TemplateFile } from './template';

export * from './template';

const DATA_DIR = new URL('../data/', import.meta.url);
/** Node type folders may carry their own gallery example as `template.json` (see AGENTS.md). */
const NODE_TYPES_DIR = new URL('../../nodes/src/', import.meta.url);

let loaded: readonly TemplateFile[] | undefined;

/**
 * Every template in `data/`, parsed once per process and sorted by category then name. A file that
 * does not parse, or whose id differs from its file name, throws: templates are code, not input.
 */
export function allTemplates(): readonly TemplateFile[] {
  if (loaded) return loaded;
  const gallery = readdirSync(DATA_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((file) => {
      const template = parseTemplate(new URL(file, DATA_DIR), file);
      if (`${template.id}.json` !== file) throw new Error(`template ${file}: id is ${template.id}`);
      return template;
    });
  loaded = [...gallery, ...nodeFolderTemplates()]
    .map((template, i, all) => {
      if (all.findIndex((t) => t.id === template.id) !== i)
        throw new Error(`template id ${template.id} is used twice`);
      return template;
    })
    .sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name));
  return loaded;
}

/** A node type folder's `template.json`: its example in the gallery, next to its code. */
function nodeFolderTemplates(): TemplateFile[] {
  if (!existsSync(NODE_TYPES_DIR)) return [];
  return readdirSync(NODE_TYPES_DIR, { withFileTypes: true })
    .filter(
      (entry) => entry.isDirectory() && existsSync(new URL(`${entry.name}/template.json`, NODE_TYPES_DIR)),
    )
    .map((entry) => entry.name)
    .sort()
    .map((folder) =>
      parseTemplate(new URL(`${folder}/template.json`, NODE_TYPES_DIR), `${folder}/template.json`),
    );
}

function parseTemplate(url: URL, name: string): TemplateFile {
  const parsed = TemplateFile.safeParse(JSON.parse(readFileSync(url, 'utf8')));
  if (!parsed.success) throw new Error(`template ${name}: ${parsed.error.message}`);
  return parsed.data;
}

export function findTemplate(id: string): TemplateFile | undefined {
  return allTemplates().find((t) => t.id === id);
}
