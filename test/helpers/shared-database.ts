import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { DIALECT } from './build-test-app.js';
import { createDatabase, dropDatabase } from './pg-server.js';

/**
 * A database of its own that several connections (a server and the CLI, as an operator's would)
 * can share: an SQLite file in a new directory, or a PostgreSQL database from the template.
 */
export async function sharedDatabase(
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (DIALECT === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), `stratus-${prefix}-`));
    return { url: `sqlite:${join(dir, 'stratus.db')}`, drop: () => rm(dir, { recursive: true }) };
  }
  const admin = inject('pgAdminUrl');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const url = await createDatabase(admin, name, 'stratus_template');
  return { url, drop: () => dropDatabase(admin, name) };
}
