export type ScopeLevel = 'read_only' | 'read_write';

/** OAuth scope areas of the reference (`vpc` has only read_write there; read_only is accepted too). */
export const SCOPE_AREAS = [
  'account',
  // Parent accounts' access to their child accounts (later revisions; the recorded traffic).
  'child_account',
  'databases',
  'domains',
  'events',
  'firewall',
  'images',
  'ips',
  'computes',
  'lke',
  'longview',
  'nodebalancers',
  'object_storage',
  'stackscripts',
  'volumes',
  'vpc',
] as const;
export type ScopeArea = (typeof SCOPE_AREAS)[number];

export interface ScopeSet {
  readonly all: boolean;
  readonly areas: ReadonlyMap<string, ScopeLevel>;
}

const AREA_SET = new Set<string>(SCOPE_AREAS);

/**
 * Parses `*` or a space- or comma-separated list of `<area>:read_only|read_write`.
 * Returns undefined when the string is not a valid scope list.
 */
export function parseScopes(input: string): ScopeSet | undefined {
  const parts = input
    .split(/[\s,]+/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) return undefined;
  if (parts.includes('*')) return parts.length === 1 ? { all: true, areas: new Map() } : undefined;
  const areas = new Map<string, ScopeLevel>();
  for (const part of parts) {
    const m = /^([a-z_]+):(read_only|read_write)$/.exec(part);
    if (!m?.[1] || !m[2] || !AREA_SET.has(m[1])) return undefined;
    const level = m[2] as ScopeLevel;
    if (areas.get(m[1]) !== 'read_write') areas.set(m[1], level);
  }
  return { all: false, areas };
}

/**
 * Why a scope list does not parse, naming the first bad scope: `"computes:write": the level must
 * be read_only or read_write`. Undefined when it parses.
 */
export function scopeProblem(input: string): string | undefined {
  const parts = input
    .split(/[\s,]+/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) return 'no scope given: use "*" or a list such as "events:read_only"';
  if (parts.includes('*')) {
    return parts.length === 1 ? undefined : '"*" is every scope and cannot be listed with others';
  }
  for (const part of parts) {
    const m = /^([^:]*)(?::(.*))?$/.exec(part);
    const area = m?.[1] ?? '';
    const level = m?.[2];
    if (!AREA_SET.has(area)) {
      return `"${part}": unknown area "${area}" (one of ${SCOPE_AREAS.join(', ')})`;
    }
    if (level !== 'read_only' && level !== 'read_write') {
      return level === undefined
        ? `"${part}": give a level, ${area}:read_only or ${area}:read_write`
        : `"${part}": unknown level "${level}" (read_only or read_write)`;
    }
  }
  return parseScopes(input) ? undefined : `"${input}" is not a list of scopes`;
}

/** The canonical string form: `*`, or sorted space-separated scopes. */
export function formatScopes(set: ScopeSet): string {
  if (set.all) return '*';
  return [...set.areas.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([area, level]) => `${area}:${level}`)
    .join(' ');
}

/** Whether the set grants one required scope (`area:read_only|read_write`; `ips:read` = read_only). */
export function grantsScope(set: ScopeSet, required: string): boolean {
  if (set.all) return true;
  const [area, rawLevel] = required.split(':');
  if (!area) return false;
  const have = set.areas.get(area);
  if (!have) return false;
  const need = rawLevel === 'read_write' ? 'read_write' : 'read_only';
  return need === 'read_only' || have === 'read_write';
}

/** Whether every scope of `inner` is also granted by `outer`. */
export function isSubset(inner: ScopeSet, outer: ScopeSet): boolean {
  if (outer.all) return true;
  if (inner.all) return false;
  for (const [area, level] of inner.areas) {
    if (!grantsScope(outer, `${area}:${level}`)) return false;
  }
  return true;
}
