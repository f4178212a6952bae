import { describe, expect, it } from 'vitest';
import { runContext } from '../../test/run-context';
import { CODE_LOG_MAX_CHARS, CODE_LOG_MAX_LINES, readCodeLogs } from './logs';
import { codeRunner } from './run';
import { runSandboxedCodeWithLogs } from './sandbox';
import { CodeOutputWithLogs } from './schema';

const limits = { timeoutMs: 2_000, memoryMb: 32 };
const run = (code: string, input: unknown = null) => runSandboxedCodeWithLogs({ code, input, ...limits });

describe("the code node's console", () => {
  it('keeps each call with its level, arguments formatted and joined by spaces', async () => {
    const { value, logs } = await run(
      `
      console.log('total', input.total, { sku: 'a' }, [1, 2], null, undefined);
      console.info('info');
      console.warn('careful');
      console.error(new TypeError('bad input'));
      console.debug('déjà vu ✓');
      console.trace('not kept');
      return input.total * 2;
    `,
      { total: 21 },
    );
    expect(value).toBe(42);
    expect(logs).toEqual({
      lines: [
        { level: 'log', message: 'total 21 {"sku":"a"} [1,2] null undefined' },
        { level: 'info', message: 'info' },
        { level: 'warn', message: 'careful' },
        { level: 'error', message: 'TypeError: bad input' },
        { level: 'debug', message: 'déjà vu ✓' },
      ],
      truncated: false,
    });
  });

  it('keeps at most 100 lines and says the rest were dropped', async () => {
    const { value, logs } = await run(
      'for (let i = 0; i < 10000; i++) console.log("line", i); return "done"',
    );
    expect(value).toBe('done');
    expect(logs.lines).toHaveLength(CODE_LOG_MAX_LINES);
    expect(logs.lines.at(-1)).toEqual({ level: 'log', message: 'line 99' });
    expect(logs.truncated).toBe(true);
  });

  it('keeps at most 8,192 characters in all, cutting the line that crosses the bound', async () => {
    const { logs } = await run(`
      console.log('a'.repeat(5000));
      console.log('b'.repeat(5000));
      console.log('c');
    `);
    expect(logs.lines.map((l) => l.message.length)).toEqual([5000, CODE_LOG_MAX_CHARS - 5000]);
    expect(logs.truncated).toBe(true);
  });

  it('keeps the lines of a run whose result is huge, and never more than the bounds', async () => {
    const { value, logs } = await run('console.log("x".repeat(100000)); return "y".repeat(100000)');
    expect((value as string).length).toBe(100_000);
    expect(logs.lines[0]?.message.length).toBe(CODE_LOG_MAX_CHARS);
  });

  it('survives user code that replaces console, JSON or Array built-ins', async () => {
    const { value, logs } = await run(`
      console.log('kept');
      Array.prototype.push = () => { throw new Error('sabotage'); };
      JSON.stringify = () => 'forged';
      console.log('after sabotage');
      globalThis.console = { log() {} };
      console.log('lost');
      return 1;
    `);
    expect(value).toBe(1);
    expect(logs.lines.map((l) => l.message)).toEqual(['kept', 'after sabotage']);
  });

  it('checks the report on the host: malformed lines are dropped, the bounds hold', () => {
    const many = Array.from({ length: 150 }, () => ({ level: 'log', message: 'm' }));
    expect(readCodeLogs(JSON.stringify([many, false]))).toMatchObject({ truncated: true });
    expect(readCodeLogs(JSON.stringify([many, false])).lines).toHaveLength(CODE_LOG_MAX_LINES);
    expect(readCodeLogs(JSON.stringify([[{ level: 'shout', message: 1 }], false]))).toEqual({
      lines: [],
      truncated: true,
    });
    expect(readCodeLogs('not json')).toEqual({ lines: [], truncated: true });
    expect(readCodeLogs(JSON.stringify([[{ level: 'log', message: 'x'.repeat(9000) }], false]))).toEqual({
      lines: [{ level: 'log', message: 'x'.repeat(CODE_LOG_MAX_CHARS) }],
      truncated: true,
    });
  });
});

describe('action.code with capture_logs', () => {
  const ctx = runContext({ input: { trigger: { n: 2 } } });

  it('answers { result, logs, logs_truncated }, which is CodeOutputWithLogs exactly', async () => {
    const output = await codeRunner.run(
      {
        code: 'console.warn("n is", input.trigger.n); return { doubled: input.trigger.n * 2 }',
        capture_logs: true,
      },
      ctx,
    );
    expect(output).toEqual({
      result: { doubled: 4 },
      logs: [{ level: 'warn', message: 'n is 2' }],
      logs_truncated: false,
    });
    expect(CodeOutputWithLogs.strict().parse(output)).toEqual(output);
  });

  it('without it answers the returned value itself, as workflows saved before it expect', async () => {
    const output = await codeRunner.run({ code: 'console.log("ignored"); return { doubled: 4 }' }, ctx);
    expect(output).toEqual({ doubled: 4 });
  });
});
