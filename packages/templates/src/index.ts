import { readdirSync, readFileSync } from 'node:fs';
import { TemplateFile } from './template';

export * from './template';

const DATA_DIR = new URL('../data/', import.meta.url);

let loaded: readonly TemplateFile[] | undefined;

/**
 * Every template in `data/`, parsed once per process and sorted by category then name. A file that
 * does not parse, or whose id differs from its file name, throws: templates are code, not input.
 */
export function allTemplates(): readonly TemplateFile[] {
  if (loaded) return loaded;
  const files = readdirSync(DATA_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort();
  loaded = files
    .map((file) => {
      const parsed = TemplateFile.safeParse(JSON.parse(readFileSync(new URL(file, DATA_DIR), 'utf8')));
      if (!parsed.success) throw new Error(`template ${file}: ${parsed.error.message}`);
      if (`${parsed.data.id}.json` !== file) throw new Error(`template ${file}: id is ${parsed.data.id}`);
      return parsed.data;
    })
    .sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name));
  return loaded;
}

export function findTemplate(id: string): TemplateFile | undefined {
  return allTemplates().find((t) => t.id === id);
}
