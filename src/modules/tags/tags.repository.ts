import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/database.js';
import { statement } from '../../db/statement.js';
import { type ArrayField, containsCondition } from '../../lib/filter.js';

/** Replaces the tags of an entity (deduplicated, order kept for display by name). */
export async function setTags(
  db: Database,
  accountId: number,
  type: string,
  id: number,
  tags: readonly string[],
): Promise<void> {
  await db.db
    .deleteFrom('entity_tags')
    .where('entity_type', '=', type)
    .where('entity_id', '=', id)
    .execute();
  const unique = [...new Set(tags)];
  if (unique.length === 0) return;
  await ensureTags(db, accountId, unique);
  await db.db
    .insertInto('entity_tags')
    .values(unique.map((tag) => ({ account_id: accountId, entity_type: type, entity_id: id, tag })))
    .execute();
}

/** Makes each label a tag of the account (tagging an entity creates its tags, as `/tags` shows). */
export async function ensureTags(
  db: Database,
  accountId: number,
  labels: readonly string[],
): Promise<void> {
  if (labels.length === 0) return;
  await db.db
    .insertInto('tags')
    .values(labels.map((label) => ({ account_id: accountId, label })))
    .onConflict((oc) => oc.columns(['account_id', 'label']).doNothing())
    .execute();
}

/** A tag's row unless the account has it (built once per dialect: `POST /tags` runs it). */
const insertNewTag = statement('tags.insert', ({ db }, accountId: number, label: string) =>
  db
    .insertInto('tags')
    .values({ account_id: accountId, label })
    .onConflict((oc) => oc.columns(['account_id', 'label']).doNothing())
    .returning('id'),
);

/** Makes a label a tag of the account: the new tag's id, or undefined when the account had it. */
export async function insertTag(
  db: Database,
  accountId: number,
  label: string,
): Promise<number | undefined> {
  const row = await insertNewTag.first(db, accountId, label);
  return row?.id;
}

/** Adds one tag to entities of a type (already tagged ones are left as they are). */
export async function addTag(
  db: Database,
  accountId: number,
  type: string,
  ids: readonly number[],
  tag: string,
): Promise<void> {
  if (ids.length === 0) return;
  await db.db
    .insertInto('entity_tags')
    .values(ids.map((id) => ({ account_id: accountId, entity_type: type, entity_id: id, tag })))
    .onConflict((oc) => oc.columns(['entity_type', 'entity_id', 'tag']).doNothing())
    .execute();
}

/** The tags of several entities at once, sorted by name. */
export async function tagsOf(
  db: Database,
  type: string,
  ids: readonly number[],
): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const rows = await db.db
    .selectFrom('entity_tags')
    .select(['entity_id', 'tag'])
    .where('entity_type', '=', type)
    .where('entity_id', 'in', ids)
    .orderBy('tag')
    .execute();
  for (const r of rows) out.get(r.entity_id)?.push(r.tag);
  return out;
}

export async function dropTags(db: Database, type: string, id: number): Promise<void> {
  await db.db
    .deleteFrom('entity_tags')
    .where('entity_type', '=', type)
    .where('entity_id', '=', id)
    .execute();
}

/** X-Filter on `tags`: membership, non-membership, or a tag containing the text. */
export function tagsFilter(type: string, idColumn: string): ArrayField {
  return {
    kind: 'array',
    member: (op, value, dialect): RawBuilder<SqlBool> => {
      const base = sql`select 1 from entity_tags t where t.entity_type = ${type} and t.entity_id = ${sql.ref(idColumn)}`;
      if (op === 'eq') return sql<SqlBool>`exists (${base} and t.tag = ${value})`;
      if (op === 'neq') return sql<SqlBool>`not exists (${base} and t.tag = ${value})`;
      return sql<SqlBool>`exists (${base} and ${containsCondition(sql.ref('t.tag'), value, dialect)})`;
    },
  };
}
