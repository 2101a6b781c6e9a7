import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

interface Parameter {
  in: string;
  name: string;
  schema?: { type?: string };
}
interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
}
interface Walked {
  method: string;
  url: string;
  operationId: string;
  /** undefined: public; []: any valid token; otherwise the scopes required. */
  scopes: string[] | undefined;
}

const INVALID_TOKEN = { errors: [{ reason: 'Invalid Token' }] };
const MISSING_SCOPE = {
  errors: [{ reason: 'Your OAuth token is not authorized to use this endpoint.' }],
};
/** A scope no operation of the platform or the areas asks for alone. */
const UNRELATED_SCOPE = 'longview:read_only';

/** Plausible values for path parameters: integers for ids, a short word otherwise. */
function plausible(p: Parameter): string {
  const t = p.schema?.type;
  return t === 'integer' || t === 'number' ? '1' : 'x';
}

/** Every public /v4 operation of the generated OpenAPI document (it tracks every route). */
async function walk(t: TestApp): Promise<Walked[]> {
  const doc = await t.get('/v4/openapi.json', { token: null });
  expect(doc.status).toBe(200);
  const out: Walked[] = [];
  for (const [path, ops] of Object.entries<Record<string, Operation>>(doc.body.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!['get', 'post', 'put', 'delete'].includes(method)) continue;
      let url = `/v4${path}`;
      for (const p of op.parameters ?? []) {
        if (p.in === 'path') url = url.replace(`{${p.name}}`, plausible(p));
      }
      const oauth = op.security?.find((s) => 'oauth' in s)?.oauth;
      out.push({
        method: method.toUpperCase(),
        url,
        operationId: op.operationId ?? `${method} ${path}`,
        scopes: op.security ? (oauth ?? []) : undefined,
      });
    }
  }
  return out;
}

describe('route walk', () => {
  let t: TestApp;
  let ops: Walked[];
  let unrelated: string;
  beforeAll(async () => {
    t = await buildTestApp();
    ops = await walk(t);
    unrelated = (await createTestUser(t, { restricted: false, scopes: UNRELATED_SCOPE })).token;
  });
  afterAll(async () => {
    await t.close();
  });

  it('getOpenApi: lists the platform operations with their security', () => {
    const byId = new Map(ops.map((o) => [o.operationId, o]));
    expect(byId.get('getEvents')?.scopes).toEqual(['events:read_only']);
    expect(byId.get('getProfile')?.scopes).toEqual([]);
    expect(byId.get('getRegions')?.scopes).toBeUndefined();
    expect(ops.every((o) => /^\/v4\//.test(o.url) && !o.url.includes('{'))).toBe(true);
  });

  it('every secured operation: no token is 401 Invalid Token', async () => {
    const failures: string[] = [];
    for (const o of ops.filter((x) => x.scopes !== undefined)) {
      const r = await t.request(o.method, o.url, { token: null });
      if (r.status !== 401 || JSON.stringify(r.body) !== JSON.stringify(INVALID_TOKEN))
        failures.push(`${o.operationId} ${o.method} ${o.url}: ${r.status} ${r.text}`);
    }
    expect(failures).toEqual([]);
  });

  it('every secured operation: an unknown token is 401 Invalid Token', async () => {
    const failures: string[] = [];
    for (const o of ops.filter((x) => x.scopes !== undefined)) {
      const r = await t.request(o.method, o.url, { token: 'not-a-token-but-long-enough-0000' });
      if (r.status !== 401 || JSON.stringify(r.body) !== JSON.stringify(INVALID_TOKEN))
        failures.push(`${o.operationId} ${o.method} ${o.url}: ${r.status} ${r.text}`);
    }
    expect(failures).toEqual([]);
  });

  it('every scoped operation: a token with an unrelated scope is 401 with the scope message', async () => {
    const failures: string[] = [];
    for (const o of ops.filter((x) => x.scopes !== undefined && x.scopes.length > 0)) {
      if (o.scopes?.includes(UNRELATED_SCOPE)) continue;
      const r = await t.request(o.method, o.url, { token: unrelated });
      if (r.status !== 401 || JSON.stringify(r.body) !== JSON.stringify(MISSING_SCOPE))
        failures.push(`${o.operationId} ${o.method} ${o.url}: ${r.status} ${r.text}`);
      else if (r.headers['x-accepted-oauth-scopes'] !== o.scopes?.join(','))
        failures.push(
          `${o.operationId}: X-Accepted-OAuth-Scopes ${r.headers['x-accepted-oauth-scopes']}`,
        );
    }
    expect(failures).toEqual([]);
  });

  it('every any-token operation: a token with an unrelated scope is let in', async () => {
    const failures: string[] = [];
    for (const o of ops.filter((x) => x.scopes?.length === 0 && x.method === 'GET')) {
      const r = await t.request(o.method, o.url, { token: unrelated });
      if (r.status === 401 || r.status >= 500)
        failures.push(`${o.operationId} ${o.method} ${o.url}: ${r.status} ${r.text}`);
    }
    expect(failures).toEqual([]);
  });

  it('every scoped GET: a token with exactly the declared scopes is let in', async () => {
    const failures: string[] = [];
    for (const o of ops.filter((x) => x.scopes && x.scopes.length > 0 && x.method === 'GET')) {
      const scopes = (o.scopes ?? []).join(' ');
      const { token } = await createTestUser(t, { restricted: false, scopes });
      const r = await t.request(o.method, o.url, { token });
      if (r.status === 401 || r.status >= 500)
        failures.push(`${o.operationId} ${o.method} ${o.url}: ${r.status} ${r.text}`);
    }
    expect(failures).toEqual([]);
  });

  it('every public operation: answers without a token, never 401 or 5xx', async () => {
    const failures: string[] = [];
    for (const o of ops.filter((x) => x.scopes === undefined)) {
      const r = await t.request(o.method, o.url, { token: null });
      if (r.status === 401 || r.status >= 500)
        failures.push(`${o.operationId} ${o.method} ${o.url}: ${r.status} ${r.text}`);
    }
    expect(failures).toEqual([]);
  });

  it('every operation: /v4beta answers like /v4 without a token', async () => {
    const failures: string[] = [];
    for (const o of ops) {
      const v4 = await t.request(o.method, o.url, { token: null });
      const beta = await t.request(o.method, o.url.replace(/^\/v4\//, '/v4beta/'), {
        token: null,
      });
      if (v4.status !== beta.status) failures.push(`${o.operationId}: ${v4.status} ${beta.status}`);
    }
    expect(failures).toEqual([]);
  });
});
