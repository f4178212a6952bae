import { writeFile } from 'node:fs/promises';
import { BenchEnv, loadProcessEnv } from '@weft/config';
import type { Page } from 'playwright-core';
import { startWebBench } from './web-stack';

/**
 * `weft bench editor`: the canvas editor in Debian's chromium with a large workflow. For each run,
 * in a fresh browser context: time from navigation until every step is drawn and a click on one
 * opens its panel (open → interactive); then frame times while a step is dragged across the
 * canvas (requestAnimationFrame intervals); then the palette's filter, keystroke to next paint.
 */
export async function benchEditorCommand(options: { nodes: number; runs: number; unplaced: boolean }) {
  const benchEnv = loadProcessEnv(BenchEnv);
  const bench = await startWebBench();
  try {
    const workflowId = await createLargeWorkflow(bench, options.nodes, !options.unplaced);
    const open: number[] = [];
    const frames: number[] = [];
    const filters: number[] = [];
    const phases: { shell: number; drawn: number }[] = [];
    for (let run = 0; run < options.runs; run++) {
      const context = await bench.browser.newContext({
        baseURL: bench.baseUrl,
        storageState: bench.state,
        viewport: { width: 1440, height: 900 },
      });
      const page = await context.newPage();
      const profile = benchEnv.WEFT_BENCH_BROWSER_PROFILE && run === options.runs - 1;
      const cdp = profile ? await context.newCDPSession(page) : undefined;
      await cdp?.send('Profiler.enable');
      await cdp?.send('Profiler.start');
      const start = performance.now();
      await page.goto(`/workflows/${workflowId}/edit`, { waitUntil: 'commit' });
      await page.locator('.svelte-flow').waitFor({ state: 'attached', timeout: 30_000 });
      const shell = performance.now() - start;
      await page
        .locator(`.svelte-flow__node[data-id="n${options.nodes - 1}"]`)
        .waitFor({ state: 'attached', timeout: 30_000 });
      const drawn = performance.now() - start;
      const middle = `n${Math.floor(options.nodes / 2)}`;
      await page.locator(`.svelte-flow__node[data-id="${middle}"]`).click();
      await page.locator('#node-panel-title', { hasText: middle }).waitFor();
      phases.push({ shell, drawn });
      if (cdp && benchEnv.WEFT_BENCH_BROWSER_PROFILE) {
        const { profile: cpu } = await cdp.send('Profiler.stop');
        await writeFile(benchEnv.WEFT_BENCH_BROWSER_PROFILE, JSON.stringify(cpu));
        process.stdout.write(`  browser CPU profile: ${benchEnv.WEFT_BENCH_BROWSER_PROFILE}\n`);
      }
      if (benchEnv.WEFT_BENCH_TIMELINE && run === options.runs - 1) {
        const entries = (await page.evaluate(
          `performance.getEntriesByType('resource').map((e) => [e.name.replace(location.origin, ''), Math.round(e.startTime), Math.round(e.responseEnd), e.transferSize])`,
        )) as [string, number, number, number][];
        for (const [name, from, to, size] of entries)
          process.stdout.write(`  ${from}-${to} ms ${size} B ${name}\n`);
      }
      open.push(performance.now() - start);
      frames.push(
        ...(await dragFrameTimes(page, `.svelte-flow__node[data-id="n${Math.floor(options.nodes / 2)}"]`)),
      );
      filters.push(await paletteFilterTime(page, 'http'));
      filters.push(await paletteFilterTime(page, ''));
      await context.close();
    }
    const sortedFrames = [...frames].sort((a, b) => a - b);
    const meanFrame = frames.reduce((a, b) => a + b, 0) / Math.max(1, frames.length);
    process.stdout.write(
      `\nEditor with ${options.nodes} steps, ${options.unplaced ? 'saved without positions (laid out on open)' : 'at saved positions'} (${options.runs} runs, fresh context each, 1440×900):\n` +
        `  open → every step drawn and one clicked into its panel: ${summary(open)} (target < 1000 ms)\n` +
        `    of which: canvas mounted ${summary(phases.map((p) => p.shell))}; every step drawn ${summary(phases.map((p) => p.drawn))}\n` +
        `  dragging a step: ${frames.length} frames, mean ${meanFrame.toFixed(1)} ms (${(1000 / meanFrame).toFixed(0)} fps), ` +
        `p95 ${percentile(sortedFrames, 0.95).toFixed(1)} ms, worst ${(sortedFrames.at(-1) ?? 0).toFixed(1)} ms (target 60 fps: 16.7 ms)\n` +
        `  palette filter, keystroke to next paint: ${summary(filters)} (target < 50 ms)\n`,
    );
  } finally {
    await bench.close();
  }
}

/**
 * N steps: a spine of transforms with a condition every 10th step. Placed on a grid as the editor
 * saves them, or without positions (as an API client may create them: laid out on open by dagre).
 */
async function createLargeWorkflow(
  bench: Awaited<ReturnType<typeof startWebBench>>,
  count: number,
  placed: boolean,
) {
  const at = (i: number) => (placed ? { position: { x: (i % 20) * 288, y: Math.floor(i / 20) * 144 } } : {});
  const nodes = Array.from({ length: count }, (_, i) =>
    i % 10 === 5
      ? {
          id: `n${i}`,
          ...at(i),
          type: 'action.condition',
          config: { conditions: [{ left: '{{ trigger.kind }}', operator: 'equals', right: 'a' }] },
        }
      : {
          id: `n${i}`,
          ...at(i),
          type: 'action.transform',
          config: { assignments: [{ key: 'step', value: String(i) }] },
        },
  );
  const edges = nodes.slice(1).map((node, i) => {
    const source = nodes[i] as { id: string; type: string };
    return {
      source: source.id,
      target: node.id,
      ...(source.type === 'action.condition' ? { source_handle: 'true' } : {}),
    };
  });
  const context = await bench.browser.newContext({ baseURL: bench.baseUrl, storageState: bench.state });
  const res = await context.request.post('/api/v1/workflows', {
    headers: { 'X-CSRF-Token': bench.csrfToken, Origin: bench.baseUrl },
    data: { name: `editor bench ${count}`, trigger_type: 'manual', nodes, edges },
  });
  const body = await res.text();
  await context.close();
  if (!res.ok()) throw new Error(`creating the workflow failed: ${res.status()} ${body}`);
  return (JSON.parse(body) as { id: string }).id;
}

/** Frame intervals (ms) recorded by requestAnimationFrame while the mouse drags a step ~60 times. */
async function dragFrameTimes(page: Page, selector: string): Promise<number[]> {
  const box = await page.locator(selector).boundingBox();
  if (!box) return [];
  // Browser-side code as text: this package is compiled without the DOM's types.
  await page.evaluate(`(() => {
    window.__frames = [];
    window.__recording = true;
    const tick = (t) => { window.__frames.push(t); if (window.__recording) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  })()`);
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  for (let i = 1; i <= 60; i++) {
    await page.mouse.move(x + i * 4, y + Math.sin(i / 6) * 40);
    await page.waitForTimeout(16);
  }
  await page.mouse.up();
  const stamps = (await page.evaluate('(window.__recording = false, window.__frames)')) as number[];
  return stamps.slice(1).map((t, i) => t - (stamps[i] as number));
}

/** Milliseconds from setting the palette's search text to the next painted frame. */
async function paletteFilterTime(page: Page, text: string): Promise<number> {
  const value = JSON.stringify(text);
  return (await page.evaluate(`(async () => {
    const input = document.querySelector('#palette-search');
    if (!input) return NaN;
    const start = performance.now();
    input.value = ${value};
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    return performance.now() - start;
  })()`)) as number;
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

function summary(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return `median ${percentile(sorted, 0.5).toFixed(0)} ms, worst ${(sorted.at(-1) ?? 0).toFixed(0)} ms [${values.map((v) => v.toFixed(0)).join(', ')}]`;
}
