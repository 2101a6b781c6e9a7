import { readFileSync } from 'node:fs';
import type { Difference, OpenApiDoc } from './openapi-compare.js';

/**
 * The shapes of the real service's responses (`../shared/reference/real-wire.json`, copied to
 * `test/fixtures/reference/real-wire.json` so a clone tests on its own): per operation and
 * status, every key path (arrays as `[]`) with the JSON types seen.
 */
export interface WireStatus {
  calls: number;
  shape?: Record<string, string>;
  enums?: Record<string, unknown[]>;
  headers?: Record<string, string[]>;
}
export interface WireOperation {
  inReference: boolean;
  operationId: string | null;
  statuses: Record<string, WireStatus>;
}
export interface WireError {
  method: string;
  path: string;
  template: string;
  status: number;
  params: Record<string, string>;
  query?: string;
  filter?: string;
  body?: unknown;
  errors: { field?: string; reason: string }[];
  inSpec: boolean;
  cassette: string;
}
export interface RealWire {
  operations: Record<string, WireOperation>;
  errors: WireError[];
  events: Record<string, { entity: string[]; secondary: (string | null)[]; status: string[] }>;
  headers: Record<string, { seen: number; values: Record<string, number> | string }>;
}

export const realWire = JSON.parse(
  readFileSync(new URL('../fixtures/reference/real-wire.json', import.meta.url), 'utf8'),
) as RealWire;

const template = (p: string) => p.replace(/\{[^}]+\}/g, '{}');

/** The real-wire operation of `METHOD /path` (any names for the path parameters). */
export function wireOperation(method: string, path: string): WireOperation | undefined {
  const key = `${method.toUpperCase()} ${template(path)}`;
  for (const [k, op] of Object.entries(realWire.operations)) {
    const [m, p] = k.split(' ', 2);
    if (`${m} ${template(p ?? '')}` === key) return op;
  }
  return undefined;
}

/** The key paths (with their types) of every 2xx answer the wire recorded for an operation. */
export function wireSuccessPaths(op: WireOperation): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [status, s] of Object.entries(op.statuses)) {
    if (!status.startsWith('2')) continue;
    for (const [path, types] of Object.entries(s.shape ?? {})) {
      const set = out.get(path) ?? new Set<string>();
      for (const t of types.split('|')) set.add(t);
      out.set(path, set);
    }
  }
  return out;
}

/** `data[].a.b[]` → `['a', 'b']`: a wire path's segments, array markers and the page left out. */
function segments(wirePath: string): string[] {
  return wirePath
    .replace(/^data\[\]\.?/, '')
    .replace(/<[^>]+>/g, '')
    .split('.')
    .map((s) => s.replace(/\[\]/g, ''))
    .filter((s) => s !== '');
}

const endsWith = (xs: string[], ys: string[]) =>
  ys.length <= xs.length && ys.every((y, i) => xs[xs.length - ys.length + i] === y);

/**
 * Whether the real wire shows what a response difference of the OpenAPI comparison says Stratus
 * does beyond the reference: a field the reference lacks, a null, or another type, at that path.
 * (The comparison names the path from the reference's schema name: `response Name.a.b`.)
 */
export function wireBacked(
  d: Difference,
  opPaths: ReadonlyMap<string, { method: string; path: string }>,
): boolean {
  const m = /^response ([^:]+): (.*)$/.exec(d.detail);
  if (!m) return false;
  const where = (m[1] ?? '')
    .split('.')
    .slice(1)
    .map((s) => s.replace(/\[\]|\{\}/g, ''))
    .filter((s) => s !== '');
  const what = m[2] ?? '';
  const at = opPaths.get(d.op);
  const op = at && wireOperation(at.method, at.path);
  if (!op) return false;
  const paths = [...wireSuccessPaths(op)].map(([p, types]) => ({ segs: segments(p), types }));
  // A page's items are named `…data[]` by the comparison and `data[].` on the wire.
  const wheres = where[0] === 'data' ? [where, where.slice(1)] : [where];
  const field = /^field (\S+) only in Stratus$/.exec(what);
  if (field) return wheres.some((w) => paths.some((p) => endsWith(p.segs, [...w, field[1] ?? ''])));
  const atPath = (p: { segs: string[] }) =>
    wheres.some((w) => endsWith(p.segs, w) && p.segs.length > 0);
  if (what === 'nullable in Stratus only') {
    return paths.some((p) => atPath(p) && p.types.has('null'));
  }
  const type = /^type (\S+) in Stratus, /.exec(what);
  if (type) {
    const ours = (type[1] ?? '').split('|');
    return paths.some((p) => atPath(p) && ours.every((t) => p.types.has(t)));
  }
  return false;
}

/** Whether the wire recorded a successful answer of the operation. */
export function wireRecorded(
  opId: string,
  opPaths: ReadonlyMap<string, { method: string; path: string }>,
): boolean {
  const at = opPaths.get(opId);
  const op = at && wireOperation(at.method, at.path);
  return op !== undefined && Object.keys(op.statuses).some((s) => s.startsWith('2'));
}

/** operationId → method and path of every operation of a generated document. */
export function operationPaths(doc: OpenApiDoc): Map<string, { method: string; path: string }> {
  const out = new Map<string, { method: string; path: string }>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, { operationId?: string }>)) {
      if (op?.operationId) out.set(op.operationId, { method, path });
    }
  }
  return out;
}
