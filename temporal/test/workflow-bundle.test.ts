import { workflowBundle } from '@weft/testing';
import { describe, expect, it } from 'vitest';

/** The source modules webpack put in the bundle, by their request path (`./packages/...`, `.pnpm/<pkg>`). */
function bundledModules(code: string): string[] {
  return [...code.matchAll(/^\/\*\*\*\/ "([^"]+)"/gm)].map((m) => m[1] as string);
}

describe('the workflow bundle', () => {
  // The SDK evaluates every bundled module afresh for each workflow run: a schema library or any
  // module-level work in the bundle is paid once per execution (it was a third of the worker's CPU).
  it('carries no validator, cron parser or save-time code', async () => {
    const { code } = await workflowBundle();
    const modules = bundledModules(code);
    expect(modules.some((m) => m.includes('temporal/workflows/execute-graph.ts'))).toBe(true);
    const unwanted = modules.filter(
      (m) =>
        /[/.]pnpm\/(zod|croner)@/.test(m) ||
        /packages\/graph\/src\/(schema|validate|trigger|check-expressions)\.ts/.test(m) ||
        /packages\/nodes\/src\/(registry|define|validate-nodes|runners|.*\/schema|.*\/run)\.ts/.test(m),
    );
    expect(unwanted).toEqual([]);
  }, 60_000);
});
