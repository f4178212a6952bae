const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `90s` → 90000. The schema guarantees the shape. */
export function durationToMs(duration: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(duration);
  if (!match) throw new Error(`invalid duration "${duration}"`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** How long a delay node waits from `now`: its duration, or until its instant (0 when past). */
export function delayMs(config: { duration?: string; until?: unknown }, now: number): number {
  if (config.duration !== undefined) return durationToMs(config.duration);
  const until = Date.parse(String(config.until));
  if (Number.isNaN(until)) throw new Error(`"until" is not a valid date: ${String(config.until)}`);
  return Math.max(0, until - now);
}
