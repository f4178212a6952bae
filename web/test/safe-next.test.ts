import { describe, expect, it } from 'vitest';
import { safeNext } from '../src/lib/nav/safe-next';

describe('safeNext (where sign-in goes afterwards)', () => {
  it('keeps a path of this site with its query and hash', () => {
    expect(safeNext('/executions?status=failed#top')).toBe('/executions?status=failed#top');
  });

  it.each([
    '//evil.example/x',
    '/\\evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    'evil.example',
    '',
    null,
    undefined,
  ])('sends %s to the dashboard', (next) => {
    expect(safeNext(next)).toBe('/');
  });

  it('normalises dot segments instead of leaving the site', () => {
    expect(safeNext('/../../etc')).toBe('/etc');
  });
});
