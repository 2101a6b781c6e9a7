import { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import { catalogueData } from '../../src/modules/catalogue/catalogue.data.js';
import { seedCatalogue } from '../../src/modules/catalogue/catalogue.repository.js';

/** Migrates and seeds the template database every PostgreSQL test database is cloned from. */
export async function migrateTemplate(url: string): Promise<void> {
  const db = Database.connect(url, { poolSize: 1 });
  try {
    await migrateToLatest(db.db, db.dialect);
    await seedCatalogue(db, catalogueData());
  } finally {
    // Every connection must be closed, or CREATE DATABASE ... TEMPLATE fails.
    await db.close();
  }
}
