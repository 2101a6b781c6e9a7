import { readFileSync } from 'node:fs';

/**
 * The version of this Stratus (package.json's, read once: the file sits one level above both
 * src/ and dist/). Written into snapshots and shown by `/_stratus/health`.
 */
export const STRATUS_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
