/**
 * List prices of common models, in US dollars per million tokens (input, output), to turn token
 * counts into a cost estimate. Matched by the longest prefix of the model name the provider
 * answered; a model not listed (a local or self-hosted one, say) has no price: its tokens are
 * counted and its cost shown as unknown, never guessed.
 */
const PRICES_PER_MILLION: [prefix: string, input: number, output: number][] = [
  ['gpt-4o-mini', 0.15, 0.6],
  ['gpt-4o', 2.5, 10],
  ['gpt-4.1-nano', 0.1, 0.4],
  ['gpt-4.1-mini', 0.4, 1.6],
  ['gpt-4.1', 2, 8],
  ['gpt-3.5-turbo', 0.5, 1.5],
  ['claude-3-haiku', 0.25, 1.25],
  ['claude-3-5-haiku', 0.8, 4],
  ['claude-haiku-4', 1, 5],
  ['claude-3-5-sonnet', 3, 15],
  ['claude-3-7-sonnet', 3, 15],
  ['claude-sonnet-4', 3, 15],
  ['claude-opus-4', 15, 75],
];

/** The estimated cost in US dollars, or null when the model has no listed price. */
export function estimateCostUsd(model: string, inputTokens: number, outputTokens: number): number | null {
  let best: (typeof PRICES_PER_MILLION)[number] | undefined;
  for (const entry of PRICES_PER_MILLION) {
    if (model.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  if (!best) return null;
  return (inputTokens * best[1] + outputTokens * best[2]) / 1_000_000;
}
