import { readFile } from 'node:fs/promises';
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
    const checkedIn = await readFile(CLIENT_TYPES_PATH, 'utf8');
    expect(checkedIn === (await generateClientTypes())).toBe(true);
    expect(await readFile(CLIENT_ENUMS_PATH, 'utf8')).toBe(await generateClientEnums());
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
