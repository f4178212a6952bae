import { describe, expect, it } from 'vitest';
import { CodeRunError, type CodeRunErrorCode, runSandboxedCode } from './sandbox';

const limits = { timeoutMs: 1_000, memoryMb: 32 };

function run(code: string, input: unknown = null, overrides: Partial<typeof limits> = {}) {
  return runSandboxedCode({ code, input, ...limits, ...overrides });
}

async function runError(
  code: string,
  input: unknown = null,
  overrides: Partial<typeof limits> = {},
): Promise<CodeRunError> {
  try {
    const result = await run(code, input, overrides);
    throw new Error(`expected a CodeRunError, got ${JSON.stringify(result)}`);
  } catch (error) {
    if (error instanceof CodeRunError) return error;
    throw error;
  }
}

async function expectCode(code: string, expected: CodeRunErrorCode, overrides: Partial<typeof limits> = {}) {
  const error = await runError(code, null, overrides);
  expect(error.code, error.message).toBe(expected);
  return error;
}

describe('runSandboxedCode', () => {
  describe('happy path', () => {
    it('computes on the input', async () => {
      await expect(run('return input.trigger.total * 2', { trigger: { total: 21 } })).resolves.toBe(42);
    });

    it('returns objects and arrays as JSON values', async () => {
      const input = {
        items: [
          { sku: 'a', qty: 2 },
          { sku: 'b', qty: 3 },
        ],
      };
      const code = `
        const total = input.items.reduce((sum, item) => sum + item.qty, 0);
        return { total, skus: input.items.map((item) => item.sku), nested: { ok: true, none: null } };
      `;
      await expect(run(code, input)).resolves.toEqual({
        total: 5,
        skus: ['a', 'b'],
        nested: { ok: true, none: null },
      });
    });

    it('awaits promises created in the sandbox', async () => {
      const code = `
        const a = await Promise.resolve(input.a);
        const b = await (async () => { await null; return 2; })();
        const all = await Promise.all([1, Promise.resolve(2), new Promise((resolve) => resolve(3))]);
        return a + b + all.reduce((x, y) => x + y, 0);
      `;
      await expect(run(code, { a: 40 })).resolves.toBe(48);
    });

    it('turns undefined into null and keeps strings intact', async () => {
      await expect(run('const x = 1;')).resolves.toBeNull();
      await expect(run('return "héllo ✓ \\u0000 😀 " + input', 'ünïcode')).resolves.toBe(
        'héllo ✓ \u0000 😀 ünïcode',
      );
    });

    it('has a console that does nothing', async () => {
      await expect(run('console.log("hi"); console.error(input); return 1', { a: 1 })).resolves.toBe(1);
    });
  });

  describe('limits', () => {
    it('stops an endless loop at the deadline', async () => {
      await run('return 1'); // load the WASM module outside the measured time
      const timeoutMs = 200;
      const started = performance.now();
      const error = await expectCode('while (true) {}', 'code_timeout', { timeoutMs });
      // The loop never ends on its own: stopping at all is the deadline's work. The bound, with room
      // for a busy machine, tells it from something far later.
      expect(performance.now() - started).toBeLessThan(timeoutMs + 5_000);
      expect(error.message).toContain('200 ms');
    });

    it('stops an endless chain of promise jobs and a loop that catches everything', async () => {
      await expectCode('for (;;) await null', 'code_timeout', { timeoutMs: 100 });
      await expectCode('for (;;) { try { while (true) {} } catch {} }', 'code_timeout', { timeoutMs: 100 });
    });

    it('reports a promise that can never settle instead of hanging', async () => {
      const error = await expectCode('await new Promise(() => {})', 'code_error');
      expect(error.message).toContain('never settles');
    });

    it('stops a runaway allocation at the memory limit', async () => {
      const started = performance.now();
      await expectCode('let a = []; while (true) a.push(new Array(1e6).fill(1))', 'code_memory_limit', {
        memoryMb: 16,
        timeoutMs: 10_000,
      });
      expect(performance.now() - started).toBeLessThan(5_000);
    });

    it('bounds the total of many small allocations, not only single large ones', async () => {
      const allocate = (mb: number) =>
        `const keep = []; for (let i = 0; i < ${mb * 10}; i++) keep.push(new Uint8Array(100 * 1024)); return keep.length`;
      await expect(run(allocate(10), null, { memoryMb: 16 })).resolves.toBe(100);
      await expectCode(allocate(24), 'code_memory_limit', { memoryMb: 16 });
      await expectCode('return new Uint8Array(20 * 1024 * 1024).length', 'code_memory_limit', {
        memoryMb: 16,
      });
    });

    it('reports out of memory, and still reads a result, when the heap stays full', async () => {
      const fill = 'globalThis.keep = []; try { while (true) keep.push(new Uint8Array(1e4)) } catch {}';
      await expectCode(`${fill}; keep.push(new Uint8Array(1e6))`, 'code_memory_limit', { memoryMb: 16 });
      const result = await run(`const out = ["é", "x".repeat(1000)]; ${fill}; return out`, null, {
        memoryMb: 16,
      });
      expect(result).toEqual(['é', 'x'.repeat(1000)]);
    });

    it('refuses an input that cannot fit in the memory limit', async () => {
      const error = await runError('return input.length', 'x'.repeat(4 * 1024 * 1024), { memoryMb: 2 });
      expect(error.code).toBe('code_memory_limit');
      await expect(run('return input.length', 'x'.repeat(1024 * 1024), { memoryMb: 16 })).resolves.toBe(
        1024 * 1024,
      );
    });

    it('reports deep recursion as an error and keeps working afterwards', async () => {
      const error = await expectCode('function f(n) { return f(n + 1) + 1 } return f(0)', 'code_error');
      expect(error.message).toContain('stack overflow');
      await expect(run('return 1 + 1')).resolves.toBe(2);
    });

    it('survives recursion that exhausts the host stack before QuickJS notices', async () => {
      // The parser recurses in C with large WASM frames; V8 may throw before QuickJS's own check.
      const error = await expectCode(
        'return new Function("return " + "(".repeat(1e5) + "1" + ")".repeat(1e5))()',
        'code_error',
      );
      expect(error.message).toContain('stack overflow');
      await expect(run('return input * 2', 21)).resolves.toBe(42);
    });

    it('does not leak: a thousand runs keep process memory flat', async () => {
      const code = 'return { doubled: input.values.map((v) => v * 2), text: "x".repeat(1000) }';
      const input = { values: Array.from({ length: 100 }, (_, i) => i) };
      for (let i = 0; i < 50; i++) await run(code, input);
      const before = process.memoryUsage().rss;
      for (let i = 0; i < 1_000; i++) await run(code, input);
      const grownMb = (process.memoryUsage().rss - before) / 1024 / 1024;
      expect(grownMb).toBeLessThan(50);
    });
  });

  describe('errors', () => {
    it('reports a thrown error with its message and line', async () => {
      const error = await expectCode('const x = 1;\nthrow new Error("boom")', 'code_error');
      expect(error.message).toBe('Error: boom (line 2)');
    });

    it('reports a rejected await and a thrown non-error', async () => {
      const rejected = await expectCode('await Promise.reject(new TypeError("nope"))', 'code_error');
      expect(rejected.message).toContain('TypeError: nope');
      const thrown = await expectCode('throw "plain string"', 'code_error');
      expect(thrown.message).toBe('plain string');
    });

    it('reports a syntax error with its line', async () => {
      const error = await expectCode('const a = 1;\nconst b = ;', 'code_error');
      expect(error.message).toMatch(/^SyntaxError: .* \(line 2\)$/);
    });

    it('reports a reference error for a missing name', async () => {
      const error = await expectCode('return missing + 1', 'code_error');
      expect(error.message).toContain("'missing' is not defined");
    });

    it('survives hostile thrown values', async () => {
      const getterThrows = await runError('throw { get message() { throw new Error("inner") } }');
      expect(getterThrows.code).toBe('code_error');
      const spins = await runError('throw { get message() { while (true) {} } }', null, { timeoutMs: 100 });
      expect(spins.code).toBe('code_timeout');
    });
  });

  describe('output', () => {
    it('rejects a function as the result', async () => {
      await expectCode('return () => 1', 'code_output');
    });

    it('rejects a function nested in the result', async () => {
      const error = await expectCode('return { ok: 1, fn: function () {} }', 'code_output');
      expect(error.message).toContain('"fn"');
    });

    it('rejects a cyclic result and a bigint', async () => {
      await expectCode('const a = {}; a.self = a; return a', 'code_output');
      await expectCode('return 10n', 'code_output');
    });

    it('is not fooled by replaced JSON helpers', async () => {
      await expect(
        run('JSON.stringify = () => "ok:1"; JSON.parse = () => 7; return input', { a: 1 }),
      ).resolves.toEqual({
        a: 1,
      });
    });
  });

  describe('security', () => {
    it('has no require, process, fetch, timers or module loading', async () => {
      const code = `return {
        require: typeof require, process: typeof process, globalProcess: typeof globalThis.process,
        fetch: typeof fetch, setTimeout: typeof setTimeout, setInterval: typeof setInterval,
        XMLHttpRequest: typeof XMLHttpRequest, WebAssembly: typeof WebAssembly, Deno: typeof Deno, Bun: typeof Bun,
      }`;
      const result = (await run(code)) as Record<string, string>;
      for (const [name, type] of Object.entries(result)) expect(type, name).toBe('undefined');
      await expectCode('await import("node:fs")', 'code_error');
    });

    it('cannot reach the host through the Function constructor', async () => {
      const result = await run('return typeof (new Function("return this")()).process');
      expect(result).toBe('undefined');
    });

    it('keeps prototype pollution inside the sandbox', async () => {
      const code = `
        Object.prototype.polluted = 'yes';
        Array.prototype.polluted = 'yes';
        ({}).__proto__.alsoPolluted = 'yes';
        return JSON.parse('{"__proto__": {"polluted": "via result"}, "a": 1}');
      `;
      const result = (await run(code)) as Record<string, unknown>;
      const host: Record<string, unknown> = {};
      expect(host.polluted).toBeUndefined();
      expect(host.alsoPolluted).toBeUndefined();
      expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
      expect(result.a).toBe(1);
    });

    it('starts every run from a fresh context', async () => {
      await run('globalThis.leftover = 42; Object.prototype.leaked = 1; return null');
      await expect(run('return [typeof leftover, ({}).leaked ?? null]')).resolves.toEqual([
        'undefined',
        null,
      ]);
    });
  });
});
