import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripNullOptionals } from '../../../src/http/null-optional.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

interface Schema {
  type?: string | string[];
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
}
interface Operation {
  operationId?: string;
  parameters?: { in: string; name: string; schema?: { type?: string } }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface BodyOp {
  operationId: string;
  method: string;
  url: string;
  schema: Schema;
}

const isNullable = (s: Schema): boolean =>
  s.nullable === true ||
  s.type === 'null' ||
  [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(isNullable);

/** An object schema's own properties (those of its object alternatives when it is a union). */
function objectOf(s: Schema): Schema | undefined {
  if (s.properties) return s;
  return [...(s.anyOf ?? []), ...(s.oneOf ?? [])].find((a) => a.properties);
}

/**
 * A body in which every optional field is `null` (`deep`: objects and arrays of objects get
 * one value whose own optional fields are null), with the dotted paths it nulled.
 */
function nulled(s: Schema, deep: boolean, path = ''): { body: unknown; paths: string[] } {
  const o = objectOf(s);
  if (!o?.properties) return { body: null, paths: [] };
  const body: Record<string, unknown> = {};
  const paths: string[] = [];
  for (const [k, p] of Object.entries(o.properties)) {
    const here = path === '' ? k : `${path}.${k}`;
    if (o.required?.includes(k) && !deep) continue;
    const inner = objectOf(p);
    const items = p.items ?? [...(p.anyOf ?? [])].find((a) => a.items)?.items;
    if (deep && inner?.properties) {
      const n = nulled(inner, true, here);
      body[k] = n.body;
      paths.push(...n.paths);
    } else if (deep && items && objectOf(items)) {
      const n = nulled(objectOf(items) as Schema, true, `${here}.0`);
      body[k] = [n.body];
      paths.push(...n.paths);
    } else if (!o.required?.includes(k)) {
      body[k] = null;
      if (!isNullable(p)) paths.push(here);
    }
  }
  return { body, paths };
}

async function bodyOperations(t: TestApp): Promise<BodyOp[]> {
  const doc = await t.get('/v4/openapi.json', { token: null });
  const out: BodyOp[] = [];
  for (const [path, ops] of Object.entries<Record<string, Operation>>(doc.body.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (!schema || !op.operationId) continue;
      let url = `/v4${path}`;
      for (const p of op.parameters ?? []) {
        const v = p.schema?.type === 'integer' ? '1' : 'x';
        if (p.in === 'path') url = url.replace(`{${p.name}}`, v);
      }
      out.push({ operationId: op.operationId, method: method.toUpperCase(), url, schema });
    }
  }
  return out;
}

/** The 400 items that name one of `paths` (a field refused because it was null). */
function namingNulled(reply: { status: number; body: unknown }, paths: string[]): unknown[] {
  if (reply.status !== 400) return [];
  const items = (reply.body as { errors?: { field?: string; reason: string }[] }).errors ?? [];
  return items.filter((e) => e.field !== undefined && paths.includes(e.field));
}

describe('null for an optional body field', () => {
  let t: TestApp;
  let ops: BodyOp[];
  beforeAll(async () => {
    t = await buildTestApp();
    ops = await bodyOperations(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('every operation with a body: null for each optional field means "not given"', async () => {
    expect(ops.length).toBeGreaterThan(80);
    const refused: string[] = [];
    let nulledFields = 0;
    for (const op of ops) {
      for (const deep of [false, true]) {
        const { body, paths } = nulled(op.schema, deep);
        nulledFields += paths.length;
        const r = await t.request(op.method, op.url, { body: body ?? {} });
        expect(r.status, `${op.operationId} ${JSON.stringify(body)}`).toBeLessThan(500);
        for (const e of namingNulled(r, paths)) {
          refused.push(`${op.operationId}: ${JSON.stringify(e)}`);
        }
      }
    }
    expect(nulledFields).toBeGreaterThan(300);
    expect(refused).toEqual([]);
  });
});

describe('null for an optional body field, on real entities', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('createVolume: a null compute_id is a volume attached to nothing', async () => {
    const r = await t.post('/v4/volumes', {
      label: 'v-null',
      size: 20,
      region: 'us-east',
      compute_id: null,
      config_id: null,
      tags: null,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ label: 'v-null', compute_id: null, tags: [] });
  });

  it('createTag: null entity lists tag nothing', async () => {
    const r = await t.post('/v4/tags', {
      label: 'null-lists',
      computes: null,
      volumes: null,
      nodebalancers: null,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ label: 'null-lists' });
  });

  it('stripNullOptionals: keeps nulls of required and nullable fields, strips the rest', () => {
    const schema: Schema = {
      type: 'object',
      required: ['label'],
      properties: {
        label: { type: 'string' },
        kernel: { type: 'string' },
        comments: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        nested: {
          type: 'object',
          properties: { a: { type: 'integer' }, b: { type: 'integer', nullable: true } },
        },
        list: { type: 'array', items: { type: 'object', properties: { c: { type: 'string' } } } },
      },
    };
    const body = {
      label: null,
      kernel: null,
      comments: null,
      nested: { a: null, b: null },
      list: [{ c: null }],
    };
    stripNullOptionals(body, schema);
    expect(body).toEqual({ label: null, comments: null, nested: { b: null }, list: [{}] });
  });
});
