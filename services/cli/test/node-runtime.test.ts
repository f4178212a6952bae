import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const pinned = /WEFT_NODE_VERSION="\$\{WEFT_NODE_VERSION:-([0-9.]+)\}"/.exec(
  readFileSync(path.join(root, 'scripts/node-env.sh'), 'utf8'),
)?.[1];

describe('the Node runtime', () => {
  it('runs this suite on Node 24 or newer, as engines asks', () => {
    const engines = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node;
    expect(engines).toBe('>=24');
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
  });

  describe('scripts/node-env.sh on a machine whose node is older', () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'weft-node-env-'));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    it('puts the pinned Node 24 from .tools first on PATH, and nothing global changes', () => {
      expect(pinned).toMatch(/^24\./);
      // A stand-in `node` that says it is 20 when the bootstrap asks its major, and is this Node
      // otherwise (npm runs on it when the script has to install).
      const oldBin = path.join(scratch, 'old-bin');
      mkdirSync(oldBin);
      writeFileSync(
        path.join(oldBin, 'node'),
        `#!/bin/sh\ncase "$*" in *process.versions.node.split*) echo 20 ;; *) exec "${process.execPath}" "$@" ;; esac\n`,
      );
      chmodSync(path.join(oldBin, 'node'), 0o755);
      // The checkout's installed Node is reused when there is one (no second download); else the
      // script installs it from the npm registry, as on a fresh machine.
      const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
      const installed = path.join(root, '.tools', `node-${pinned}`);
      if (existsSync(installed)) {
        mkdirSync(path.join(scratch, '.tools'));
        symlinkSync(installed, path.join(scratch, '.tools', `node-${pinned}`));
      }
      const npmDir = path.dirname(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
      const out = execFileSync(
        'bash',
        [
          '-c',
          `set -euo pipefail; root="$1"; . "$2"; command -v node; node -p process.versions.node`,
          'bash',
          scratch,
          path.join(root, 'scripts/node-env.sh'),
        ],
        {
          encoding: 'utf8',
          env: { PATH: `${oldBin}:${npmDir}:/usr/bin:/bin`, HOME: os.homedir() },
          timeout: 300_000,
        },
      )
        .trim()
        .split('\n');
      expect(out[0]).toBe(
        path.join(scratch, '.tools', `node-${pinned}`, 'node_modules', `node-linux-${arch}`, 'bin', 'node'),
      );
      expect(out[1]).toBe(pinned);
    }, 300_000);
  });
});
