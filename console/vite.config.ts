import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { defineConfig } from 'vite';

const br = promisify(brotliCompress);
const gz = promisify(gzip);

/**
 * `.br` and `.gz` twins of the build's scripts and styles, made once at build time so the server
 * sends compressed bytes without compressing per request (@fastify/static's preCompressed).
 */
async function compress(dir: string, files: string[]): Promise<void> {
  for (const f of files) {
    if (!/\.(js|css|svg)$/.test(f)) continue;
    const file = path.join(dir, f);
    const bytes = await readFile(file);
    await writeFile(
      `${file}.br`,
      await br(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
    await writeFile(`${file}.gz`, await gz(bytes, { level: 9 }));
  }
}

/**
 * The web console's build: `dist/console/` of the package, where the server serves it from
 * (src/modules/console/console.files.ts). Hashed assets under `assets/`, each with `.gz` and
 * `.br` twins the server sends to browsers that take them. No React plugin: esbuild compiles the
 * JSX (the automatic runtime); a build for a server has no use for fast refresh.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  esbuild: { jsx: 'automatic' },
  // `npm run dev:console`: the console from its sources; the API, the login service and the
  // operator endpoints of a running server (STRATUS_URL, default http://127.0.0.1:8080).
  server: {
    port: 5173,
    proxy: Object.fromEntries(
      ['/v4', '/oauth', '/_stratus', '/.well-known'].map((p) => [
        p,
        { target: process.env.STRATUS_URL ?? 'http://127.0.0.1:8080', changeOrigin: false },
      ]),
    ),
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 400,
    rollupOptions: {
      // React Query marks its modules "use client" (for server components): nothing to do here.
      onwarn: (w, warn) => {
        if (w.code !== 'MODULE_LEVEL_DIRECTIVE') warn(w);
      },
      output: {
        manualChunks: (id) => {
          if (/node_modules\/(react|react-dom|scheduler)\//.test(id)) return 'react';
          if (/node_modules\/(react-router|@tanstack)\//.test(id)) return 'app-libs';
          if (id.includes('node_modules/uplot')) return 'uplot';
          return undefined;
        },
      },
    },
  },
  plugins: [
    {
      name: 'stratus-precompress',
      apply: 'build',
      writeBundle: (options, bundle) => compress(options.dir ?? '', Object.keys(bundle)),
    },
  ],
});
