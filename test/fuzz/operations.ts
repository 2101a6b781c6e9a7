/** The operations of the server's generated OpenAPI document, as the fuzzer needs them. */

export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  nullable?: boolean;
}

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: Schema;
}

export interface Operation {
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path under /v4 with `{name}` placeholders. */
  path: string;
  params: Param[];
  /** The JSON body schema (undefined: the operation takes no JSON body). */
  body: Schema | undefined;
  /** A non-JSON body's content types (images). */
  binary: string[];
}

interface RawOp {
  operationId?: string;
  parameters?: Param[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
}

/** Every GET/POST/PUT/DELETE operation of a generated document. */
export function operations(doc: { paths: Record<string, Record<string, RawOp>> }): Operation[] {
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      const method = m.toUpperCase();
      if (!['GET', 'POST', 'PUT', 'DELETE'].includes(method)) continue;
      const content = op.requestBody?.content ?? {};
      out.push({
        id: op.operationId ?? `${method} ${path}`,
        method: method as Operation['method'],
        path,
        params: op.parameters ?? [],
        body: content['application/json']?.schema,
        binary: Object.keys(content).filter((c) => c !== 'application/json'),
      });
    }
  }
  return out;
}
