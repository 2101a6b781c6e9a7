/** Tags of any taggable entity (compute, volume, …). */
export interface EntityTagsTable {
  account_id: number;
  entity_type: string;
  entity_id: number;
  tag: string;
}

export interface TagTables {
  entity_tags: EntityTagsTable;
}
