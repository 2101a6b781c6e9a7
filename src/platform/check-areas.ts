import type { AnyArea } from './area.js';

/**
 * Tables of the platform itself, owned by no area: the job queue and its workers' heartbeats, the
 * migrations' bookkeeping and the sealer's keyring.
 */
export const PLATFORM_TABLES: readonly string[] = [
  'jobs',
  'job_workers',
  'stratus_migrations',
  'stratus_migrations_lock',
  'obj_keyring',
];

/**
 * Checks a list of areas before anything is built from it: names are unique, every area comes
 * after the areas it needs, and no two areas (or an area and the platform) claim the same table,
 * entity type, grant type or job. Throws naming the areas at fault.
 */
export function checkAreas(areas: readonly AnyArea[]): void {
  const before = new Set<string>();
  const tables = new Map<string, string>(PLATFORM_TABLES.map((t) => [t, 'the platform']));
  const types = new Map<string, string>();
  const grants = new Map<string, string>();
  const jobs = new Map<string, string>();
  const claim = (seen: Map<string, string>, what: string, key: string, area: string) => {
    const owner = seen.get(key);
    if (owner !== undefined)
      throw new Error(`${what} ${key} is declared by ${owner} and by area ${area}`);
    seen.set(key, `area ${area}`);
  };
  for (const a of areas) {
    if (before.has(a.name)) throw new Error(`area ${a.name} is listed twice`);
    for (const need of a.needs) {
      if (!before.has(need.name)) {
        throw new Error(`area ${a.name} needs area ${need.name}, which must come before it`);
      }
    }
    for (const t of a.tables) claim(tables, 'table', t, a.name);
    for (const e of a.entities ?? []) {
      claim(types, 'entity type', e.type, a.name);
      if (e.grant) claim(grants, 'grant type', e.grant, a.name);
    }
    for (const j of a.jobs ?? []) claim(jobs, 'job', j.name, a.name);
    before.add(a.name);
  }
}
