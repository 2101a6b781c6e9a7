import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * What the console's browser tests share: axe-core on a page, screenshots for docs/console/
 * (`STRATUS_SCREENSHOTS=1`, `npm run screenshots`), and a page signed in with a pasted personal
 * access token (the sign-in flow itself is tested in console.browser.test.ts).
 */
export const SHOTS = process.env.STRATUS_SCREENSHOTS === '1';
const SHOT_DIR = fileURLToPath(new URL('../../docs/console/', import.meta.url));
const AXE = readFileSync(
  fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url)),
  'utf8',
);

/** axe-core on the page: no serious or critical violation. */
export async function accessible(p: Page, what: string): Promise<void> {
  await p.addScriptTag({ content: AXE });
  const found = await p.evaluate(async () => {
    const axe = (globalThis as any).axe as {
      run: () => Promise<{
        violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
      }>;
    };
    const r = await axe.run();
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  expect(found, `axe on ${what}`).toEqual([]);
}

/** The page saved as docs/console/<name>.png when screenshots are asked for. */
export async function shot(p: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOT_DIR, { recursive: true });
  await p.screenshot({ path: path.join(SHOT_DIR, `${name}.png`), fullPage: true });
}

/** Signs the page in with a personal access token, pasted on the console's sign-in page. */
export async function pasteToken(p: Page, base: string, token: string): Promise<void> {
  await p.goto(`${base}/console/sign-in`);
  await p.getByLabel('Personal access token').fill(token);
  await p.getByRole('button', { name: 'Use this token' }).click();
  await p.getByRole('heading', { name: 'Overview' }).waitFor();
}

/** A page of a new browser context, signed in with a personal access token. */
export async function signedInPage(
  browser: Browser,
  base: string,
  token: string,
  width: number,
): Promise<Page> {
  const c = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
  const p = await c.newPage();
  p.setDefaultTimeout(30_000);
  p.on('dialog', (d) => void d.accept());
  await pasteToken(p, base, token);
  return p;
}
