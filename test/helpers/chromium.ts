import { accessSync, constants } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/**
 * The system's Chromium (Debian's `chromium` package), never a browser downloaded by Playwright.
 * `STRATUS_CHROMIUM` names another executable.
 */
export const CHROMIUM_PATH = process.env.STRATUS_CHROMIUM ?? '/usr/bin/chromium';

export function chromiumInstalled(): boolean {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Why the browser tests cannot run, as CI prints it. */
export const CHROMIUM_MISSING = `Chromium not found at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y chromium; .ci/run does it) or set STRATUS_CHROMIUM to a Chromium executable`;

/** Headless Chromium; `--no-sandbox` because CI and containers often run as root. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    timeout: 60_000,
  });
}
