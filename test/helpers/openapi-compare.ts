/**
 * Compares the OpenAPI document Stratus generates with the reference document, operation by
 * operation: operationId, path and query parameters, request body, the 200 response, the default
 * error response and the security scopes. Types and nullability are compared; formats,
 * enumerations, descriptions and examples are not.
 *
 * A difference is a string `<operation> <where>: <what>`, where `<where>` names the field from the
 * nearest named reference schema (`response Event.entity.id`) so that one difference reads the
 * same in every operation that returns that schema.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

export interface OpenApiDoc {
  paths: Record<string, Record<string, unknown>>;
  security?: unknown;
  components?: unknown;
  [k: string]: unknown;
}

export interface Difference {
  /** The Stratus operationId (or `METHOD /path` without one; `(document)` for the whole). */
  op: string;
  /** `<where>: <what>`, without the operation. */
  detail: string;
}

export interface ComparisonResult {
  /** Every operation Stratus publishes, by operationId (or `METHOD /path`). */
  operations: string[];
  differences: Difference[];
}

/** One deliberate difference (or a group with one reason), for one or more operations. */
export interface AllowedDifference {
  ops: string[];
  details: string[];
  reason: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const PRIMITIVES = new Set(['string', 'integer', 'number', 'boolean', 'object', 'array']);
/**
 * Paths that must never appear in the published document (paths are relative to /v4, so a leaked
 * /v4beta route shows as `beta/...`; internal routes keep their `/_stratus` prefix).
 */
const FORBIDDEN_PATH = /^(?!\/)|^\/(v4|_stratus|openapi\.json)/;

type Section = 'request' | 'response' | 'error';

interface Shape {
  /** Non-null JSON types, sorted; empty when the schema does not say. */
  types: string[];
  nullable: boolean;
  /** The component schema this came from (`#/components/schemas/<name>`), if any. */
  name?: string;
  properties?: Map<string, Shape>;
  required?: string[];
  items?: Shape;
  additional?: Shape;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Resolves a local JSON pointer (`#/components/schemas/Event/properties/page`). */
function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`openapi-compare: external $ref ${ref}`);
  let cur: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObj(cur) || !(key in cur)) throw new Error(`openapi-compare: unresolved $ref ${ref}`);
    cur = cur[key];
  }
  return cur;
}

/** Follows `$ref`s until a schema without one. */
function deref(doc: unknown, s: unknown): Obj {
  let cur = s;
  for (let i = 0; i < 32 && isObj(cur) && typeof cur.$ref === 'string'; i++) {
    cur = resolvePointer(doc, cur.$ref);
  }
  return isObj(cur) ? cur : {};
}

const SCHEMA_REF = /^#\/components\/schemas\/([^/]+)$/;

/** Whether a (possibly referenced, possibly allOf-composed) schema carries a flag. */
function hasFlag(doc: unknown, s: unknown, flag: 'readOnly' | 'writeOnly', depth = 0): boolean {
  if (!isObj(s) || depth > 16) return false;
  if (s[flag] === true) return true;
  if (typeof s.$ref === 'string') return hasFlag(doc, resolvePointer(doc, s.$ref), flag, depth + 1);
  if (Array.isArray(s.allOf)) return s.allOf.some((p) => hasFlag(doc, p, flag, depth + 1));
  return false;
}

function mergeShapes(parts: Shape[]): Shape {
  const out: Shape = { types: [], nullable: false };
  for (const p of parts) {
    if (out.types.length === 0) out.types = p.types;
    out.nullable ||= p.nullable;
    if (p.properties) {
      out.properties ??= new Map();
      for (const [k, v] of p.properties) {
        const prev = out.properties.get(k);
        out.properties.set(k, prev ? mergeShapes([prev, v]) : v);
      }
    }
    if (p.required) out.required = [...new Set([...(out.required ?? []), ...p.required])];
    out.items ??= p.items;
    out.additional ??= p.additional;
  }
  if (out.types.length === 0 && out.properties) out.types = ['object'];
  return out;
}

/**
 * A schema's comparable shape. `readOnly` properties are dropped from request bodies and
 * `writeOnly` properties from responses; `$ref`, `allOf`, `anyOf`/`oneOf` with null and
 * `nullable` are resolved.
 */
function shapeOf(doc: unknown, s: unknown, section: Section, stack: string[] = []): Shape {
  if (!isObj(s)) return { types: [], nullable: false };
  if (typeof s.$ref === 'string') {
    const ref = s.$ref;
    const name = SCHEMA_REF.exec(ref)?.[1];
    if (stack.includes(ref))
      return { types: ['object'], nullable: false, ...(name ? { name } : {}) };
    const inner = shapeOf(doc, resolvePointer(doc, ref), section, [...stack, ref]);
    // Siblings of $ref are not valid in 3.0 but occur; `nullable` is the one that matters.
    const nullable = inner.nullable || s.nullable === true;
    return name ? { ...inner, nullable, name } : { ...inner, nullable };
  }
  const parts: Shape[] = [];
  if (Array.isArray(s.allOf))
    parts.push(mergeShapes(s.allOf.map((p) => shapeOf(doc, p, section, stack))));
  const variants = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : []).map(
    (v) => shapeOf(doc, v, section, stack),
  );
  let nullable = s.nullable === true;
  const nonNull = variants.filter((v) => !(v.types.length === 1 && v.types[0] === 'null'));
  if (nonNull.length !== variants.length) nullable = true;
  if (nonNull.length === 1 && nonNull[0]) parts.push(nonNull[0]);
  else if (nonNull.length > 1) {
    const u = mergeShapes(nonNull);
    u.types = [...new Set(nonNull.flatMap((v) => v.types))].sort();
    parts.push(u);
  }

  const own: Shape = { types: [], nullable: false };
  const types = (Array.isArray(s.type) ? s.type : typeof s.type === 'string' ? [s.type] : []).map(
    String,
  );
  if (types.includes('null')) nullable = true;
  if (s.enum !== undefined && Array.isArray(s.enum) && s.enum.includes(null)) nullable = true;
  own.types = types.filter((t) => t !== 'null').sort();
  if (own.types.length === 0 && types.includes('null') && parts.length === 0) own.types = ['null'];
  if (isObj(s.properties)) {
    const skip = section === 'request' ? 'readOnly' : 'writeOnly';
    own.properties = new Map();
    for (const [k, v] of Object.entries(s.properties)) {
      if (hasFlag(doc, v, skip)) continue;
      own.properties.set(k, shapeOf(doc, v, section, stack));
    }
  }
  if (Array.isArray(s.required)) {
    own.required = s.required.map(String).filter((r) => !own.properties || own.properties.has(r));
  }
  if (s.items !== undefined) own.items = shapeOf(doc, s.items, section, stack);
  if (isObj(s.additionalProperties))
    own.additional = shapeOf(doc, s.additionalProperties, section, stack);
  else if (s.additionalProperties === true) own.additional = { types: [], nullable: false };
  if (own.types.length === 0) {
    if (own.properties || own.additional) own.types = ['object'];
    else if (own.items) own.types = ['array'];
  }
  const out = mergeShapes([...parts, own]);
  // An explicit type on the schema wins over what its parts say.
  if (own.types.length > 0) out.types = own.types;
  out.nullable = out.nullable || nullable;
  if (out.required && out.properties) {
    const props = out.properties;
    out.required = out.required.filter((r) => props.has(r));
  }
  return out;
}

const typeText = (sh: Shape) => (sh.types.length === 0 ? 'any' : sh.types.join('|'));
const join = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);
const sameSet = (a: string[], b: string[]) =>
  a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',');

function compareShapes(
  ours: Shape,
  ref: Shape,
  path: string,
  section: Section,
  out: string[],
): void {
  const where = `${section} ${path === '' ? '(body)' : path}`;
  const known = (sh: Shape) => sh.types.length > 0 && sh.types.every((t) => PRIMITIVES.has(t));
  if (known(ref) && !sameSet(ours.types, ref.types)) {
    out.push(`${where}: type ${typeText(ours)} in Stratus, ${typeText(ref)} in reference`);
  }
  if (ours.nullable !== ref.nullable) {
    out.push(`${where}: nullable in ${ours.nullable ? 'Stratus' : 'reference'} only`);
  }
  if (ref.properties || ours.properties) {
    const o = ours.properties ?? new Map<string, Shape>();
    const r = ref.properties ?? new Map<string, Shape>();
    // A reference object that lists no properties is free-form: only its type is compared.
    if (ref.properties && ref.properties.size > 0) {
      for (const k of r.keys()) if (!o.has(k)) out.push(`${where}: field ${k} only in reference`);
    }
    for (const [k, sh] of o) {
      const rk = r.get(k);
      if (!rk) {
        if (ref.properties && ref.properties.size > 0)
          out.push(`${where}: field ${k} only in Stratus`);
        continue;
      }
      compareShapes(sh, rk, rk.name ?? join(path, k), section, out);
    }
    if (section === 'request' && ref.properties && ref.properties.size > 0) {
      const or = ours.required ?? [];
      const rr = ref.required ?? [];
      if (!sameSet(or, rr)) {
        const fmt = (xs: string[]) => `[${[...xs].sort().join(', ')}]`;
        out.push(`${where}: required ${fmt(or)} in Stratus, ${fmt(rr)} in reference`);
      }
    }
  }
  if (ours.items && ref.items) {
    compareShapes(ours.items, ref.items, ref.items.name ?? `${path}[]`, section, out);
  } else if (
    ref.items &&
    ref.items.types.length > 0 &&
    known(ours) &&
    ours.types.includes('array')
  ) {
    out.push(`${where}: array item schema only in reference`);
  }
  if (ours.additional && ref.additional) {
    compareShapes(ours.additional, ref.additional, `${path}{}`, section, out);
  }
}

// ---- operations ----

interface Param {
  name: string;
  in: string;
  required: boolean;
  schema: unknown;
}

function params(doc: unknown, pathItem: Obj, op: Obj): Map<string, Param> {
  const out = new Map<string, Param>();
  const add = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const raw of list) {
      const p = deref(doc, raw);
      if (typeof p.name !== 'string' || typeof p.in !== 'string') continue;
      if (p.in !== 'path' && p.in !== 'query') continue;
      out.set(`${p.in} ${p.name}`, {
        name: p.name,
        in: p.in,
        required: p.required === true,
        schema: p.schema,
      });
    }
  };
  add(pathItem.parameters);
  add(op.parameters);
  return out;
}

function jsonSchema(doc: unknown, container: unknown): unknown {
  const c = deref(doc, container);
  const content = isObj(c.content) ? c.content : undefined;
  if (!content) return undefined;
  const media = content['application/json'] ?? Object.values(content)[0];
  return isObj(media) ? media.schema : undefined;
}

function securityText(doc: OpenApiDoc, op: Obj): string {
  const sec = op.security !== undefined ? op.security : doc.security;
  if (!Array.isArray(sec) || sec.length === 0) return 'public';
  const oauth = sec.find((s) => isObj(s) && 'oauth' in s);
  if (!isObj(oauth)) return 'token';
  const scopes = Array.isArray(oauth.oauth) ? oauth.oauth.map(String).sort() : [];
  return `oauth [${scopes.join(' ')}]`;
}

const template = (p: string) => p.replace(/\{[^}]+\}/g, '{}');

function findReference(
  ref: OpenApiDoc,
  path: string,
  method: string,
): { path: string; item: Obj; op: Obj } | undefined {
  const exact = ref.paths[path];
  if (isObj(exact) && isObj(exact[method])) return { path, item: exact, op: exact[method] };
  for (const [p, item] of Object.entries(ref.paths)) {
    if (template(p) === template(path) && isObj(item) && isObj(item[method])) {
      return { path: p, item, op: item[method] };
    }
  }
  return undefined;
}

function compareOperation(
  oursDoc: OpenApiDoc,
  refDoc: OpenApiDoc,
  ours: { item: Obj; op: Obj },
  refOp: { item: Obj; op: Obj },
): string[] {
  const out: string[] = [];
  const oid = ours.op.operationId;
  const rid = refOp.op.operationId;
  if (oid !== rid) out.push(`operationId: ${String(oid)} in Stratus, ${String(rid)} in reference`);

  // Parameters: name, location, type, required-ness.
  const op = params(oursDoc, ours.item, ours.op);
  const rp = params(refDoc, refOp.item, refOp.op);
  for (const k of rp.keys()) if (!op.has(k)) out.push(`${k}: only in reference`);
  for (const [k, p] of op) {
    const r = rp.get(k);
    if (!r) {
      out.push(`${k}: only in Stratus`);
      continue;
    }
    if (p.required !== r.required) {
      out.push(`${k}: required ${p.required} in Stratus, ${r.required} in reference`);
    }
    const diffs: string[] = [];
    compareShapes(
      shapeOf(oursDoc, p.schema, 'request'),
      shapeOf(refDoc, r.schema, 'request'),
      '',
      'request',
      diffs,
    );
    for (const d of diffs) out.push(`${k}${d.replace(/^request \(body\)/, '')}`);
  }

  // Request body.
  const ob =
    ours.op.requestBody !== undefined ? jsonSchema(oursDoc, ours.op.requestBody) : undefined;
  const rb =
    refOp.op.requestBody !== undefined ? jsonSchema(refDoc, refOp.op.requestBody) : undefined;
  if (ob !== undefined && rb === undefined) out.push('request body: only in Stratus');
  else if (ob === undefined && rb !== undefined) out.push('request body: only in reference');
  else if (ob !== undefined && rb !== undefined) {
    const r = shapeOf(refDoc, rb, 'request');
    compareShapes(shapeOf(oursDoc, ob, 'request'), r, r.name ?? '', 'request', out);
  }

  // 200 and default (error) responses.
  const oResp = isObj(ours.op.responses) ? ours.op.responses : {};
  const rResp = isObj(refOp.op.responses) ? refOp.op.responses : {};
  for (const [code, section] of [
    ['200', 'response'],
    ['default', 'error'],
  ] as const) {
    if (rResp[code] === undefined) continue;
    if (oResp[code] === undefined) {
      out.push(`${section}: ${code} response only in reference`);
      continue;
    }
    const os = jsonSchema(oursDoc, oResp[code]);
    const rs = jsonSchema(refDoc, rResp[code]);
    if (rs === undefined) continue;
    if (os === undefined) {
      out.push(`${section}: ${code} schema only in reference`);
      continue;
    }
    const r = shapeOf(refDoc, rs, section);
    compareShapes(shapeOf(oursDoc, os, section), r, r.name ?? '', section, out);
  }

  // Security: public, any token, or the oauth scopes.
  const os = securityText(oursDoc, ours.op);
  const rs = securityText(refDoc, refOp.op);
  if (os !== rs) out.push(`security: ${os} in Stratus, ${rs} in reference`);
  return out;
}

/**
 * Compares every operation of `ours` with the reference operation of the same path and method
 * (path parameter names may differ; that shows as a parameter difference). Operations of the
 * reference that Stratus does not serve are not compared.
 */
export function compareOpenApi(ours: OpenApiDoc, reference: OpenApiDoc): ComparisonResult {
  const operations: string[] = [];
  const differences: Difference[] = [];
  const seen = new Map<string, string>();
  for (const [path, item] of Object.entries(ours.paths ?? {})) {
    if (!isObj(item)) continue;
    if (FORBIDDEN_PATH.test(path)) {
      differences.push({ op: '(document)', detail: `path ${path}: must not be published` });
    }
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      const label =
        typeof op.operationId === 'string' ? op.operationId : `${method.toUpperCase()} ${path}`;
      const key = `${method.toUpperCase()} ${path}`;
      if (seen.has(label)) {
        differences.push({
          op: label,
          detail: `operationId: used by ${seen.get(label)} and ${key}`,
        });
      }
      seen.set(label, key);
      operations.push(label);
      const refOp = findReference(reference, path, method);
      if (!refOp) {
        differences.push({ op: label, detail: `${key}: not in reference` });
        continue;
      }
      // A schema used at several places reports the same difference once per operation.
      for (const detail of new Set(compareOperation(ours, reference, { item, op }, refOp))) {
        differences.push({ op: label, detail });
      }
    }
  }
  return { operations, differences };
}

export const differenceText = (d: Difference) => `${d.op} ${d.detail}`;

/**
 * Splits differences into those not allow-listed (`unexpected`) and allow-list entries that no
 * longer occur (`stale`), both as `<op> <detail>` strings.
 */
export function auditDifferences(
  differences: Difference[],
  allowed: AllowedDifference[],
): { unexpected: string[]; stale: string[] } {
  const actual = new Set(differences.map(differenceText));
  const listed = new Set(
    allowed.flatMap((a) => a.ops.flatMap((op) => a.details.map((d) => `${op} ${d}`))),
  );
  return {
    unexpected: [...actual].filter((d) => !listed.has(d)).sort(),
    stale: [...listed].filter((d) => !actual.has(d)).sort(),
  };
}
