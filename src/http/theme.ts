import { readFileSync } from 'node:fs';

let css: string | undefined;

/**
 * The stylesheet the console and the login service's pages share (theme.css beside this file,
 * copied into dist/ by the build), read once.
 */
export function themeCss(): string {
  css ??= readFileSync(new URL('./theme.css', import.meta.url), 'utf8');
  return css;
}

/** The mark shown beside the name, inline (the pages load nothing else). */
export const LOGO_SVG =
  '<svg viewBox="0 0 32 32" aria-hidden="true" focusable="false"><path fill="#0a58a8" d="M6 20a6 6 0 0 1 1.6-11.8A8 8 0 0 1 23 9a5.5 5.5 0 0 1 2 11z"/><path fill="#7fb2e5" d="M4 24h24v2H4zm4 3h16v2H8z"/></svg>';
