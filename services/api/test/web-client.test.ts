import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_ENUMS_PATH,
  CLIENT_TYPES_PATH,
  generateClientEnums,
  generateClientTypes,
  openApiDocument,
} from '../../../scripts/generate-web-client';

describe("the web app's generated client", () => {
  it('matches the routes (regenerate with: node --import tsx scripts/generate-web-client.ts)', async () => {
    for (const [file, generate] of [
      [CLIENT_TYPES_PATH, generateClientTypes],
      [CLIENT_ENUMS_PATH, generateClientEnums],
    ] as const) {
      const checkedIn = await readFile(file, 'utf8');
      const generated = await generate();
      // A unified diff (checked-in → what the routes generate) names the drifted lines; comparing
      // the two whole files would print thousands of lines, or nothing useful once truncated.
      const name = path.relative(process.cwd(), file);
      const drift =
        checkedIn === generated ? '' : createTwoFilesPatch(name, `${name} (generated)`, checkedIn, generated);
      expect(drift === '', `${name} differs from what the routes generate:\n${drift}`).toBe(true);
    }
  });

  it('covers the routes the pages call, session routes included', async () => {
    const document = (await openApiDocument()) as { paths: Record<string, unknown> };
    for (const path of [
      '/auth/login',
      '/auth/setup',
      '/me',
      '/users',
      '/invitations',
      '/dashboard',
      '/executions/{id}',
    ]) {
      expect(Object.keys(document.paths)).toContain(path);
    }
  });
});
