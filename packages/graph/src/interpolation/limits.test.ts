import { describe, expect, it } from 'vitest';
import { ExpressionTooLargeError, MAX_EXPRESSION_LIST_ITEMS, MAX_EXPRESSION_TEXT_LENGTH } from './limits';
import { renderTemplate, renderValue } from './render';
import type { ExpressionScope, RenderOptions } from './scope';

const options: RenderOptions = { now: new Date('2024-02-29T13:05:09.123Z'), timezone: 'UTC' };
const MB = 'a,'.repeat(500_000); // 1,000,000 characters, 500,001 items when split on a comma

function scopeWith(trigger: unknown): ExpressionScope {
  return { trigger, nodes: {}, execution: { id: 'e', workflow_id: 'w', started_at: '' } };
}

function tooLarge(run: () => unknown): ExpressionTooLargeError {
  try {
    run();
  } catch (error) {
    if (error instanceof ExpressionTooLargeError) return error;
    throw error;
  }
  throw new Error('expected an ExpressionTooLargeError');
}

describe('interpolation size limits', () => {
  it('refuses the probe: split into characters then join with a long separator on a 1 MB text', () => {
    const error = tooLarge(() =>
      renderTemplate('{{ trigger.s | split: | join:bbbbbbbbbb }}', scopeWith({ s: MB }), options),
    );
    expect(error.code).toBe('expression_too_large');
    expect(error.message).toMatch(/split/);
  });

  it('caps join, replace, urlencode and json at the text limit, before or as they build', () => {
    const items = Array.from({ length: 1100 }, () => 'x'.repeat(1024));
    const scope = scopeWith({
      items,
      s: 'ab'.repeat(300_000),
      big: { text: 'y'.repeat(MAX_EXPRESSION_TEXT_LENGTH) },
      accents: 'é'.repeat(200_000),
    });
    expect(
      tooLarge(() => renderTemplate('{{ trigger.items | join:12345678 }}', scope, options)).message,
    ).toMatch(/join.*longer than 1048576 characters/);
    tooLarge(() => renderTemplate('{{ trigger.s | replace:a:aaaa }}', scope, options));
    tooLarge(() => renderTemplate('{{ trigger.accents | urlencode }}', scope, options));
    tooLarge(() => renderTemplate('{{ trigger.big | json }}', scope, options));
  });

  it('caps split at the list limit, with and without a separator', () => {
    const scope = scopeWith({ s: MB, points: 'é'.repeat(MAX_EXPRESSION_LIST_ITEMS + 1) });
    expect(tooLarge(() => renderTemplate('{{ trigger.s | split:, }}', scope, options)).message).toMatch(
      /more than 100000 items/,
    );
    tooLarge(() => renderTemplate('{{ trigger.points | split: }}', scope, options));
    expect(
      renderTemplate('{{ trigger.s | split:, | length }}', scopeWith({ s: 'a,'.repeat(50_000) }), options),
    ).toBe(50_001);
  });

  it('caps a mixed template as it is assembled', () => {
    const scope = scopeWith({ half: 'z'.repeat(MAX_EXPRESSION_TEXT_LENGTH / 2 + 1) });
    tooLarge(() => renderTemplate('{{ trigger.half }}{{ trigger.half }}', scope, options));
    expect(renderTemplate('{{ trigger.half }}!', scope, options)).toHaveLength(
      MAX_EXPRESSION_TEXT_LENGTH / 2 + 2,
    );
  });

  it('lets values through that it did not build, and values at the limit', () => {
    const huge = 'q'.repeat(3 * MAX_EXPRESSION_TEXT_LENGTH);
    const scope = scopeWith({ huge, exact: 'w'.repeat(MAX_EXPRESSION_TEXT_LENGTH) });
    expect(renderTemplate('{{ trigger.huge }}', scope, options)).toBe(huge);
    expect(renderTemplate('{{ trigger.huge | default:x }}', scope, options)).toBe(huge);
    expect(renderTemplate('{{ trigger.exact | upper }}', scope, options)).toHaveLength(
      MAX_EXPRESSION_TEXT_LENGTH,
    );
  });

  it('renderValue names the config field that went over', () => {
    const scope = scopeWith({ s: MB });
    const error = tooLarge(() =>
      renderValue(
        { url: 'https://x', headers: { 'X-Sig': '{{ trigger.s | replace:,:---------- }}' } },
        scope,
        options,
      ),
    );
    expect(error.field).toBe('headers.X-Sig');
    expect(error.message).toMatch(/^headers\.X-Sig: /);
    expect(
      tooLarge(() => renderValue({ list: ['ok', '{{ trigger.s | split:, }}'] }, scope, options)).field,
    ).toBe('list.1');
  });
});
