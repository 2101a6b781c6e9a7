import { type TSchema, Type } from '@sinclair/typebox';
import type { EntityRegistry } from '../../entities/entities.js';
import { PageOf } from '../../http/schemas/common.js';

/** The reference's `POST /tags` id lists; a type not declared yet (domains) has no entities. */
export const REFERENCE_TAG_FIELDS = ['computes', 'domains', 'volumes', 'nodebalancers'] as const;

export const TagSchema = Type.Object({ label: Type.String() });
export const TagPage = PageOf(TagSchema);
export const TagParams = Type.Object({ tagLabel: Type.String() });

export interface CreateTag {
  label: string;
  [field: string]: string | number[] | string[] | undefined;
}

/** Every id-list field: the reference's, and those of every declared taggable type. */
export function tagFields(entities: EntityRegistry): string[] {
  return [
    ...new Set([...REFERENCE_TAG_FIELDS, ...entities.taggable().map((d) => d.taggable.field)]),
  ];
}

export function createTagBody(entities: EntityRegistry) {
  // Ids, or the keys a type names its entities by (reserved addresses: the address).
  const byKey = new Set(
    entities
      .taggable()
      .filter((d) => d.taggable.resolve)
      .map((d) => d.taggable.field),
  );
  const lists = Object.fromEntries(
    tagFields(entities).map((f) => [
      f,
      Type.Optional(Type.Array(byKey.has(f) ? Type.String() : Type.Integer())),
    ]),
  );
  return Type.Object({ label: Type.String({ minLength: 3, maxLength: 50 }), ...lists });
}

/** `{type, data}` where data is the API object of any declared taggable type. */
export function taggedObjectPage(entities: EntityRegistry) {
  const shapes: TSchema[] = entities.taggable().map((d) => d.taggable.schema);
  return PageOf(
    Type.Object({
      type: Type.String(),
      data: shapes.length === 1 ? (shapes[0] as TSchema) : Type.Union(shapes),
    }),
  );
}
