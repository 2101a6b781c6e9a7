import { useQuery } from '@tanstack/react-query';

/**
 * The paths this server serves, from its generated OpenAPI document: pages of areas that are not
 * served yet (domains, while that API lands) stay hidden and light up once they are.
 */
export function useServes(): (path: string) => boolean {
  const q = useQuery({
    queryKey: ['openapi-paths'],
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async () => {
      const res = await fetch('/v4/openapi.json');
      const doc = (await res.json()) as { paths?: Record<string, unknown> };
      return new Set(Object.keys(doc.paths ?? {}));
    },
  });
  return (path) => q.data?.has(path) === true;
}
