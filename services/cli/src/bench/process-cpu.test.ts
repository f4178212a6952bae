import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processTreeCpuMs } from './process-cpu';

describe('processTreeCpuMs', () => {
  it('counts a running descendant and, once reaped, its time through the parent', async () => {
    // sh runs a child that burns ~400 ms of CPU in a grandchild, then idles so we can measure the tree.
    const burn = `node -e "const t=Date.now(); while (Date.now()-t<400);"`;
    const shell = spawn('sh', ['-c', `${burn} & wait; sleep 3`], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 1500));
      const pid = shell.pid as number;
      // The grandchild has ended and was reaped by sh: its CPU now shows in sh's children times.
      expect(processTreeCpuMs(pid)).toBeGreaterThanOrEqual(300);
      expect(processTreeCpuMs(pid)).toBeLessThan(5000);
    } finally {
      shell.kill('SIGKILL');
    }
  });

  it('counts nothing for a process that does not exist', () => {
    expect(processTreeCpuMs(2 ** 22 + 7)).toBe(0);
  });
});
