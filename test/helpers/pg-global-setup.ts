// Pulls 'vitest' into the program so the augmentation below resolves (TS2664).
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { createDatabase, startPgServer } from './pg-server.js';
import { migrateTemplate } from './pg-template.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

export const TEMPLATE_DATABASE = 'stratus_template';

export default async function setup(
  project: TestProject,
): Promise<(() => Promise<void>) | undefined> {
  if (process.env.DB_DIALECT !== 'postgres') {
    project.provide('pgAdminUrl', '');
    return undefined;
  }

  const server = await startPgServer();
  try {
    const templateUrl = await createDatabase(server.url, TEMPLATE_DATABASE);
    await migrateTemplate(templateUrl);
  } catch (err) {
    await server.stop();
    throw err;
  }
  project.provide('pgAdminUrl', server.url);

  return async () => {
    await server.stop();
  };
}
