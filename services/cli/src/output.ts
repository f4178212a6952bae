/** With --json a command prints exactly one JSON object; otherwise readable lines. */
export function printResult(json: boolean, value: Record<string, unknown>, lines: string[]): void {
  if (json) process.stdout.write(`${JSON.stringify(value)}\n`);
  else process.stdout.write(`${lines.join('\n')}\n`);
}
