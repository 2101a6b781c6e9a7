import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILT = path.join(ROOT, 'dist', 'console', 'index.html');

function newest(dir: string): number {
  let max = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) max = Math.max(max, statSync(path.join(e.parentPath, e.name)).mtimeMs);
  }
  return max;
}

/**
 * The console's build (`dist/console/`), made again when a source of it is newer: the browser
 * tests drive what `npm run build` makes, never a stale copy.
 */
export function ensureConsoleBuild(): void {
  let built = 0;
  try {
    built = statSync(BUILT).mtimeMs;
  } catch {
    built = 0;
  }
  const sources = Math.max(
    newest(path.join(ROOT, 'console')),
    statSync(path.join(ROOT, 'src', 'http', 'theme.css')).mtimeMs,
  );
  if (built > sources) return;
  execFileSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '--config',
      'console/vite.config.ts',
      '--logLevel',
      'warn',
    ],
    // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build: the
    // tests drive the production build that `npm run build:console` makes.
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } },
  );
}
