import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_RULES_DOC } from '../../../src/modules/controls/faults.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken } from './helpers.js';

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: unknown[];
  tags?: string[];
  requestBody?: {
    content: Record<
      string,
      {
        schema: Record<string, unknown>;
        example?: unknown;
        examples?: Record<string, { value: unknown }>;
      }
    >;
  };
};

describe('the emulator controls\u2019 OpenAPI document', () => {
  let t: TestApp;
  let token: string;
  let doc: { paths: Record<string, Record<string, Operation>>; [k: string]: unknown };
  beforeAll(async () => {
    t = await buildTestApp();
    token = await operatorToken(t);
    const r = await t.get('/_stratus/openapi.json', { token: null });
    expect(r.status).toBe(200);
    doc = r.body;
  });
  afterAll(async () => {
    await t.close();
  });

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, o]) => ({ path, method, o })),
    );

  it('controls document: every control, probe and extension, each with an id and a summary', () => {
    const listed = operations().map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(listed.sort()).toEqual(
      [
        'GET /_stratus/health',
        'GET /_stratus/ready',
        'GET /_stratus/metrics',
        'GET /_stratus/info',
        'GET /_stratus/accounts',
        'GET /_stratus/jobs',
        'POST /_stratus/reset',
        'POST /_stratus/seed',
        'GET /_stratus/snapshot',
        'POST /_stratus/snapshot',
        'GET /_stratus/timing',
        'PUT /_stratus/timing',
        'GET /_stratus/clock',
        'PUT /_stratus/clock',
        'POST /_stratus/clock/advance',
        'GET /_stratus/faults',
        'PUT /_stratus/faults',
        'GET /_stratus/maintenance',
        'POST /_stratus/maintenance',
        'POST /_stratus/maintenance/{id}/cancel',
        'POST /_stratus/firewalls/{firewallId}/evaluate',
        'GET /_stratus/machines',
        'GET /_stratus/machines/{computeId}/console',
        'POST /_stratus/machines/{computeId}/console',
        'POST /_stratus/child-accounts',
        'DELETE /_stratus/child-accounts/{euuid}',
        'POST /_stratus/managed/credentials/{credentialId}/reveal',
        'POST /_stratus/managed/disable',
        'POST /_stratus/support/tickets',
        'POST /_stratus/support/tickets/{ticketId}/replies',
      ].sort(),
    );
    for (const { path, method, o } of operations()) {
      expect(o.summary, `${method} ${path}`).toBeTruthy();
      if (!['/_stratus/health', '/_stratus/ready', '/_stratus/metrics'].includes(path)) {
        expect(o.operationId, `${method} ${path}`).toMatch(/^stratus[A-Z]/);
      }
    }
    // Authentication: the operator token, but for the probes (none) and extensions (API token).
    expect(doc.security).toEqual([{ operatorToken: [] }]);
    expect(doc.paths['/_stratus/health']?.get?.security).toEqual([]);
    expect(doc.paths['/_stratus/reset']?.post?.security).toBeUndefined();
    expect(doc.paths['/_stratus/firewalls/{firewallId}/evaluate']?.post?.security).toEqual([
      { personalAccessToken: [] },
    ]);
    // The API's own document does not list them.
  });

  it('controls document: the fault-rule format is described field by field', () => {
    const put = doc.paths['/_stratus/faults']?.put;
    expect(put?.description).toBe(FAULT_RULES_DOC);
    expect((doc.info as { description: string }).description).toContain(FAULT_RULES_DOC);
    const body = put?.requestBody?.content['application/json']?.schema as {
      properties: { rules: { items: { properties: Record<string, { description?: string }> } } };
    };
    const fields = body.properties.rules.items.properties;
    for (const f of [
      'method',
      'path',
      'operationId',
      'account',
      'probability',
      'count',
      'response',
    ]) {
      expect(fields[f]?.description, f).toBeTruthy();
    }
  });

  it('controls document: every example is valid for its schema and accepted by the server', async () => {
    const ajv = new Ajv({ strict: false });
    addFormats.default(ajv);
    const examples: { path: string; method: string; example: unknown }[] = [];
    for (const { path, method, o } of operations()) {
      const media = o.requestBody?.content['application/json'];
      const schema = media?.schema;
      const given = [
        ...(media?.example !== undefined ? [media.example] : []),
        ...Object.values(media?.examples ?? {}).map((x) => x.value),
      ];
      for (const example of given) {
        expect(
          ajv.validate(schema as object, example),
          `${method} ${path}: ${ajv.errorsText()}`,
        ).toBe(true);
        examples.push({ path, method, example });
      }
    }
    expect(examples.map((e) => `${e.method} ${e.path}`).sort()).toEqual(
      expect.arrayContaining([
        'post /_stratus/reset',
        'post /_stratus/seed',
        'put /_stratus/timing',
        'put /_stratus/clock',
        'post /_stratus/clock/advance',
        'put /_stratus/faults',
      ]),
    );
    // Sent as they are (but the reset of one account, whose euuid is made up).
    for (const e of examples) {
      if (e.path === '/_stratus/reset' && (e.example as { euuid?: string }).euuid) continue;
      const r = await t.request(e.method.toUpperCase(), e.path, { token, body: e.example });
      expect(r.status, `${e.method} ${e.path}: ${r.text}`).toBe(200);
    }
  });

  it('docs: /_stratus/docs offers the API\u2019s document and the controls\u2019 one; the API\u2019s lists no control', async () => {
    const init = await t.get('/_stratus/docs/static/swagger-initializer.js', { token: null });
    expect(init.status).toBe(200);
    expect(init.text).toContain('"url":"/v4/openapi.json"');
    expect(init.text).toContain('"url":"/_stratus/openapi.json"');
    const api = (await t.get('/v4/openapi.json', { token: null })).body;
    expect(Object.keys(api.paths).filter((p) => p.includes('_stratus'))).toEqual([]);
    expect((await op(t, token).get('/_stratus/openapi.json')).status).toBe(200);
  });
});
