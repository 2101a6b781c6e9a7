import type { Generated } from 'kysely';

/** Tags of any taggable entity (compute, volume, …). */
export interface EntityTagsTable {
  account_id: number;
  entity_type: string;
  entity_id: number;
  tag: string;
}

/** The tags of an account: created by `POST /tags` or by tagging an entity; gone on DELETE. */
export interface TagsTable {
  id: Generated<number>;
  account_id: number;
  label: string;
}

export interface TagTables {
  entity_tags: EntityTagsTable;
  tags: TagsTable;
}
