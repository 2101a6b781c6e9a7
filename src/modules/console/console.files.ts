import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the console's build lives at run time: `dist/console/` of the package (made by
 * `npm run build`, which `npm install` runs). The same path from the sources (`src/modules/
 * console/`) and from the build (`dist/modules/console/`): both are three levels below the root.
 */
export const CONSOLE_DIST = fileURLToPath(new URL('../../../dist/console/', import.meta.url));

/** The console's `index.html`, read again when the build changes (a rebuild while serving). */
export class ConsoleFiles {
  private cached: { mtimeMs: number; html: string } | undefined;

  readonly dir: string;

  constructor(dir: string | undefined) {
    this.dir = dir ?? CONSOLE_DIST;
  }

  get assets(): string {
    return path.join(this.dir, 'assets');
  }

  /** The page, or undefined when the console is not built. */
  async index(): Promise<string | undefined> {
    const file = path.join(this.dir, 'index.html');
    let mtimeMs: number;
    try {
      mtimeMs = (await stat(file)).mtimeMs;
    } catch {
      return undefined;
    }
    if (this.cached?.mtimeMs !== mtimeMs)
      this.cached = { mtimeMs, html: await readFile(file, 'utf8') };
    return this.cached.html;
  }
}
