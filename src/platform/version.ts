import { readFileSync } from 'node:fs';

/**
 * The version of this Stratus (package.json's, read once: the file sits two levels above both
 * src/platform/ and dist/platform/). Written into snapshots, shown by `/_stratus/health` and on
 * the console's landing page.
 */
export const STRATUS_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
