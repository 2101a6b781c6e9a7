import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';

export const ErrorItemSchema = Type.Object({
  reason: Type.String(),
  field: Type.Optional(Type.String()),
});

export const ErrorEnvelope = Type.Object({ errors: Type.Array(ErrorItemSchema) });

export const Empty = Type.Object({});

export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'The page to return (1-based).' })),
  page_size: Type.Optional(
    Type.Integer({
      minimum: 25,
      maximum: 500,
      description: 'Results per page (25 to 500, default 100).',
    }),
  ),
});
export type PageQueryT = Static<typeof PageQuery>;

/** The paged envelope `{data, page, pages, results}`. */
export function PageOf<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    page: Type.Integer(),
    pages: Type.Integer(),
    results: Type.Integer(),
  });
}

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/**
 * UTC date-time without zone ("2018-01-01T00:01:01"), as the real service writes it. No `format`
 * keyword: the serializer would reject values without a zone suffix.
 */
export const DateTime = (opts: { description?: string } = {}) =>
  Type.String({ description: opts.description ?? 'UTC date-time, no zone suffix' });

export const IntId = (description: string) => Type.Integer({ description });

/** Path params object with one integer id. */
export function IdParams<K extends string>(
  key: K,
): TObject<Record<K, ReturnType<typeof Type.Integer>>> {
  return Type.Object({ [key]: Type.Integer() } as Record<K, ReturnType<typeof Type.Integer>>);
}
