import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

let root: string;
const at = (...p: string[]) => path.join(root, ...p);
/** Sets a file's modification time, in seconds since the epoch. */
const stamp = (file: string, seconds: number) => utimesSync(file, seconds, seconds);

/** `bin/stratus.js <args>` of the temporary package; what its CLI printed. */
async function stratus(env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run(process.execPath, [at('bin', 'stratus.js'), 'hello'], {
    env: { PATH: process.env.PATH, ...env },
  });
  return stdout.trim();
}

/**
 * A package laid out as the repository is: the real bin/ entry, a build (dist/BUILD and a bundle
 * whose CLI says "bundle"), and sources whose CLI says "source", run through tsx.
 */
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'stratus-entry-'));
  mkdirSync(at('bin'));
  for (const f of ['stratus.js', 'run-bundle.js', 'package.json']) {
    copyFileSync(path.join(ROOT, 'bin', f), at('bin', f));
  }
  writeFileSync(at('package.json'), JSON.stringify({ type: 'module' }));
  symlinkSync(path.join(ROOT, 'node_modules'), at('node_modules'));
  mkdirSync(at('src', 'deep'), { recursive: true });
  writeFileSync(
    at('src', 'cli.ts'),
    `export async function main(argv: string[]): Promise<number> {\n  console.log('source ' + argv.join(' '));\n  return 0;\n}\n`,
  );
  writeFileSync(at('src', 'deep', 'other.ts'), 'export const x: number = 1;\n');
  mkdirSync(at('dist', 'bundle'), { recursive: true });
  writeFileSync(
    at('dist', 'bundle', 'cli.cjs'),
    `exports.main = async (argv) => { console.log('bundle ' + argv.join(' ')); return 0; };`,
  );
  writeFileSync(at('dist', 'BUILD'), '');
  const now = Math.floor(Date.now() / 1000);
  for (const f of [at('src', 'cli.ts'), at('src', 'deep', 'other.ts')]) stamp(f, now - 60);
  stamp(at('dist', 'BUILD'), now);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the stratus command (bin/stratus.js)', () => {
  it('stratus: runs the bundle when the build is newer than every source', async () => {
    expect(await stratus()).toBe('bundle hello');
  });

  it('stratus: runs the sources when one of them, however deep, changed after the build', async () => {
    stamp(at('src', 'deep', 'other.ts'), Math.floor(Date.now() / 1000) + 60);
    expect(await stratus()).toBe('source hello');
  }, 30_000);

  it('stratus: runs the bundle when only a test file under src/ changed after the build', async () => {
    writeFileSync(at('src', 'deep', 'other.test.ts'), 'export const y = 2;\n');
    stamp(at('src', 'deep', 'other.test.ts'), Math.floor(Date.now() / 1000) + 60);
    expect(await stratus()).toBe('bundle hello');
  });

  it('stratus: runs the sources when there is no build stamp', async () => {
    rmSync(at('dist', 'BUILD'));
    expect(await stratus()).toBe('source hello');
  }, 30_000);

  it('stratus: runs the sources when STRATUS_FROM_SOURCE=1', async () => {
    expect(await stratus({ STRATUS_FROM_SOURCE: '1' })).toBe('source hello');
  }, 30_000);

  it('stratus: an installed package (no src/) runs its build', async () => {
    rmSync(at('src'), { recursive: true });
    expect(await stratus()).toBe('bundle hello');
  });
});
