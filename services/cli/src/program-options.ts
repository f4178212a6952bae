import { InvalidArgumentError, Option } from 'commander';

/** Option value parsers: a bad value stops the command before it starts anything (exit 2, one line). */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of 1 or more');
  return n;
}

export function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number of 0 or more');
  return n;
}

export function positiveIntList(value: string): number[] {
  const list = value.split(',').map((part) => Number(part.trim()));
  if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new InvalidArgumentError('must be a comma-separated list of whole numbers of 1 or more');
  }
  return list;
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `--json`: the command prints exactly one JSON object. */
export const jsonOption = () => new Option('--json', 'print one JSON object instead of text');

export const orgOption = () => new Option('--org <id>', 'organization id').makeOptionMandatory();
