import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProductWord } from '../../../src/http/product-word.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

interface Operation {
  operationId?: string;
  parameters?: { in: string; name: string; schema?: { type?: string } }[];
}

/** Every /v4 operation of a generated document, with plausible path parameters. */
async function operations(t: TestApp): Promise<{ method: string; path: string; id: string }[]> {
  const doc = await t.get('/v4/openapi.json', { token: null });
  expect(doc.status).toBe(200);
  const out: { method: string; path: string; id: string }[] = [];
  for (const [path, ops] of Object.entries<Record<string, Operation>>(doc.body.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!['get', 'post', 'put', 'delete'].includes(method)) continue;
      let url = path;
      for (const p of op.parameters ?? []) {
        if (p.in !== 'path') continue;
        const t = p.schema?.type;
        url = url.replace(`{${p.name}}`, t === 'integer' || t === 'number' ? '1' : 'x');
      }
      out.push({ method: method.toUpperCase(), path: url, id: op.operationId ?? path });
    }
  }
  return out;
}

/** A standalone `compute` (as a word of a path, name or value), not `Compute` nor `computed`. */
const CANON = /(?<![A-Za-z])compute(?=s?(?![A-Za-z]))/;

for (const word of ['acme', 'node']) {
  describe(`STRATUS_PRODUCT_WORD=${word}: every operation of the generated document`, () => {
    let plain: TestApp;
    let worded: TestApp;
    beforeAll(async () => {
      plain = await buildTestApp({ timing: 'instant' });
      worded = await buildTestApp({ timing: 'instant', env: { STRATUS_PRODUCT_WORD: word } });
    });
    afterAll(async () => {
      await plain.close();
      await worded.close();
    });

    it('getOpenApi: the document names the word, never compute, with the same operations', async () => {
      const doc = await worded.get('/v4/openapi.json', { token: null });
      expect(CANON.test(doc.text)).toBe(false);
      expect(Object.keys(doc.body.paths)).toContain(`/${word}/instances`);
      const mine = (await operations(worded)).map((o) => o.id).sort();
      const theirs = (await operations(plain)).map((o) => o.id).sort();
      expect(mine).toEqual(theirs);
    });

    it('every operation: answers at the word path as the plain server does at compute', async () => {
      const ops = await operations(worded);
      const canon = new Map((await operations(plain)).map((o) => [`${o.method} ${o.id}`, o]));
      const failures: string[] = [];
      for (const o of ops) {
        const p = canon.get(`${o.method} ${o.id}`);
        if (!p) {
          failures.push(`${o.id}: not in the plain document`);
          continue;
        }
        const a = await worded.request(o.method, `/v4${o.path}`);
        const b = await plain.request(p.method, `/v4${p.path}`);
        if (a.status !== b.status) failures.push(`${o.id} ${o.path}: ${a.status} vs ${b.status}`);
        if (a.status >= 500) failures.push(`${o.id} ${o.path}: ${a.status} ${a.text}`);
        const fa = (a.body?.errors ?? []).map((e: { field?: string }) => e.field ?? '');
        const fb = (b.body?.errors ?? []).map((e: { field?: string }) =>
          (e.field ?? '').replace(/(^|[_.])compute(s?)(?=[_.]|$)/g, `$1${word}$2`),
        );
        if (JSON.stringify(fa) !== JSON.stringify(fb))
          failures.push(`${o.id}: fields ${JSON.stringify(fa)} vs ${JSON.stringify(fb)}`);
        // Only free text (reasons, labels) may still say compute; names and values never.
        const names =
          JSON.stringify(a.body, (k, v) => (k === 'reason' || k === 'label' ? undefined : v)) ?? '';
        if (a.status < 300 && CANON.test(names)) failures.push(`${o.id}: compute in ${names}`);
      }
      expect(failures).toEqual([]);
    });

    it('every operation: compute keeps working beside the word', async () => {
      const ops = await operations(plain);
      const failures: string[] = [];
      for (const o of ops.filter((x) => x.method === 'GET' && x.path.includes('compute'))) {
        const a = await worded.get(`/v4${o.path}`);
        const b = await plain.get(`/v4${o.path}`);
        if (a.status !== b.status) failures.push(`${o.id}: ${a.status} vs ${b.status}`);
      }
      expect(failures).toEqual([]);
    });
  });
}

describe('STRATUS_PRODUCT_WORD=acme: both directions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ timing: 'instant', env: { STRATUS_PRODUCT_WORD: 'acme' } });
  });
  afterAll(async () => {
    await t.close();
  });

  async function create(label: string, path = '/v4/acme/instances') {
    const r = await t.post(path, {
      region: 'us-east',
      type: 'g6-standard-1',
      image: 'acme/debian12',
      root_pass: 'a-Strong-pass-123456',
      label,
      tags: ['compute', 'compute_id'],
    });
    expect(r.status).toBe(200);
    await t.settle();
    return r;
  }

  it('createInstance: the word path, image id in the word, user data untouched', async () => {
    const r = await create('compute-box');
    expect(r.body.label).toBe('compute-box');
    expect(r.body.tags).toEqual(['compute', 'compute_id']);
    expect(r.body.image).toBe('acme/debian12');
    const again = await t.get(`/v4/acme/instances/${r.body.id}`);
    expect(again.body.label).toBe('compute-box');
    const beta = await t.get(`/v4beta/acme/instances/${r.body.id}`);
    expect(beta.status).toBe(200);
  });

  it('maintenance policies and interface generations: their values in the word, both ways', async () => {
    const policies = await t.get('/v4/maintenance/policies');
    expect(policies.body.data.map((x: { slug: string }) => x.slug)).toEqual([
      'acme/migrate',
      'acme/power_off_on',
    ]);
    const set = await t.put('/v4/account/settings', {
      maintenance_policy: 'acme/power_off_on',
      interfaces_for_new_acmes: 'acme_default_but_legacy_config_allowed',
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      maintenance_policy: 'acme/power_off_on',
      interfaces_for_new_acmes: 'acme_default_but_legacy_config_allowed',
    });
    const r = await t.post('/v4/acme/instances', {
      region: 'us-east',
      type: 'g6-nanode-1',
      label: 'modern-one',
      interface_generation: 'acme',
      interfaces: [{ public: {} }],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      interface_generation: 'acme',
      maintenance_policy: 'acme/power_off_on',
    });
    await t.put('/v4/account/settings', {
      maintenance_policy: 'acme/migrate',
      interfaces_for_new_acmes: 'legacy_config_default_but_acme_allowed',
    });
  });

  it('getRegions/getAvailability: capability names in the word, capitalized', async () => {
    const regions = await t.get('/v4/regions');
    const caps = regions.body.data.flatMap((r: { capabilities: string[] }) => r.capabilities);
    expect(caps).toContain('Acmes');
    expect(caps.some((c: string) => /Compute/.test(c))).toBe(false);
    const av = await t.get('/v4/account/availability');
    expect(av.body.data[0].available).toContain('Acmes');
  });

  it('createLock: entity_type in the word (the SDKs lock their instances by it)', async () => {
    const inst = await create('locked-one');
    const lock = await t.post('/v4/locks', {
      entity_type: 'acme',
      entity_id: inst.body.id,
      lock_type: 'cannot_delete',
    });
    expect(lock.status).toBe(200);
    expect(lock.body.entity).toMatchObject({ id: inst.body.id, type: 'acme' });
    expect((await t.del(`/v4/locks/${lock.body.id}`)).status).toBe(200);
  });

  it('createInstance: compute paths and names keep working', async () => {
    const r = await create('plain-box', '/v4/compute/instances');
    expect(r.body.image).toBe('acme/debian12');
    expect((await t.get(`/v4/compute/instances/${r.body.id}`)).status).toBe(200);
  });

  it('getEvents: actions, entity types and urls in the word; X-Filter in the word', async () => {
    const r = await create('evented');
    const ev = await t.get('/v4/account/events', {
      filter: { 'entity.type': 'acme', action: 'acme_create', 'entity.id': r.body.id },
    });
    expect(ev.status).toBe(200);
    expect(ev.body.data.length).toBeGreaterThan(0);
    const e = ev.body.data[0];
    expect(e.action).toBe('acme_create');
    expect(e.entity.type).toBe('acme');
    expect(e.entity.url).toBe(`/v4/acme/instances/${r.body.id}`);
    expect(e.entity.label).toBe('evented');
    const canon = await t.get('/v4/account/events', {
      filter: { 'entity.type': 'compute', action: 'compute_create', 'entity.id': r.body.id },
    });
    expect(canon.body.data.map((x: { id: number }) => x.id)).toEqual(
      ev.body.data.map((x: { id: number }) => x.id),
    );
  });

  it('field names: W_id in a body is compute_id, errors name the word', async () => {
    const a = await create('source');
    const vol = await t.post('/v4/volumes', { label: 'v1', size: 10, region: 'us-east' });
    expect(vol.status).toBe(200);
    await t.settle();
    const attach = await t.post(`/v4/volumes/${vol.body.id}/attach`, { acme_id: a.body.id });
    expect(attach.status).toBe(200);
    expect(attach.body.acme_id).toBe(a.body.id);
    expect(attach.body).not.toHaveProperty('compute_id');
    const bad = await t.post('/v4/volumes', { label: 'v2', size: 10, acme_id: 'x' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).not.toMatch(/"field":"compute/);
    const missing = await t.post('/v4/volumes', {
      label: 'v3',
      region: 'us-east',
      acme_id: 999999,
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ reason: 'Acme not found', field: 'acme_id' }]);
  });

  it('createPersonalAccessToken: scopes in the word, headers in the word', async () => {
    const r = await t.post('/v4/profile/tokens', { label: 'w', scopes: 'acmes:read_only' });
    expect(r.status).toBe(200);
    expect(r.body.scopes).toBe('acmes:read_only');
    const me = await t.get('/v4/acme/instances', { token: r.body.token });
    expect(me.status).toBe(200);
    expect(me.headers['x-oauth-scopes']).toBe('acmes:read_only');
    expect(me.headers['x-accepted-oauth-scopes']).toBe('acmes:read_only');
    const denied = await t.get('/v4/volumes', { token: r.body.token });
    expect(denied.status).toBe(401);
  });

  it('getProfileGrants/updateUserGrants: grant names in the word', async () => {
    const u = await t.post('/v4/account/users', {
      username: 'restricted1',
      email: 'r1@example.com',
      restricted: true,
    });
    expect(u.status).toBe(200);
    const g = await t.put('/v4/account/users/restricted1/grants', {
      global: { add_acmes: true },
    });
    expect(g.status).toBe(200);
    expect(g.body.global.add_acmes).toBe(true);
    expect(g.body.global).not.toHaveProperty('add_computes');
    expect(Array.isArray(g.body.acme)).toBe(true);
    expect(g.body).not.toHaveProperty('compute');
  });

  it('the operator routes and their answers are not translated', async () => {
    const r = await t.get('/_stratus/openapi.json', { token: null });
    expect(r.status).toBe(200);
    expect(r.text).not.toMatch(/\bacme\b/);
  });
});

describe('ProductWord (node): a word that is part of other names', () => {
  const pw = new ProductWord('node');
  const schema = {
    type: 'object',
    properties: {
      nodes: { type: 'array', items: { type: 'object', properties: { label: {} } } },
      computes: { type: 'array', items: { type: 'integer' } },
      compute_id: { type: 'integer' },
      metadata: { type: 'object' },
    },
  };

  it('inTree: a name the schema knows is kept, one it knows only translated is renamed', () => {
    expect(pw.inTree({ nodes: [{ label: 'n1' }], node_id: 3 }, schema)).toEqual({
      nodes: [{ label: 'n1' }],
      compute_id: 3,
    });
  });

  it('inTree: a free-form map (no properties in the schema) is never renamed', () => {
    expect(pw.inTree({ metadata: { node_id: 'x', type: 'node' } }, schema)).toEqual({
      metadata: { node_id: 'x', type: 'node' },
    });
  });

  it('outTree: names, vocabulary values and urls in the word; labels and tags untouched', () => {
    expect(
      pw.outTree({
        compute_id: 1,
        label: 'compute',
        tags: ['compute'],
        entity: { type: 'compute', url: '/v4/compute/instances/1', label: 'compute_x' },
        action: 'compute_boot',
        description: 'compute stuff',
      }),
    ).toEqual({
      node_id: 1,
      label: 'compute',
      tags: ['compute'],
      entity: { type: 'node', url: '/v4/node/instances/1', label: 'compute_x' },
      action: 'node_boot',
      description: 'compute stuff',
    });
  });

  it('outTree: error reasons in the word, in both cases and in field names, never inside a word', () => {
    expect(
      pw.outTree({
        errors: [
          { reason: 'Compute busy.' },
          { reason: 'region is required when compute_id is not given', field: 'compute_id' },
          { reason: 'Volume is already attached to a compute instance.' },
          { reason: 'The provided header does not match what was computed.' },
        ],
      }),
    ).toEqual({
      errors: [
        { reason: 'Node busy.' },
        { reason: 'region is required when node_id is not given', field: 'node_id' },
        { reason: 'Volume is already attached to a node instance.' },
        { reason: 'The provided header does not match what was computed.' },
      ],
    });
  });

  /** What `outTree` makes of an answer, as text: `outText` must write the same. */
  const viaTree = (v: unknown) => JSON.stringify(pw.outTree(JSON.parse(JSON.stringify(v))));

  it('outText: the same text as outTree on the parsed answer, for every kind of value', () => {
    const answers: unknown[] = [
      {
        compute_id: 1,
        label: 'compute',
        tags: ['compute', 'x'],
        entity: { type: 'compute', url: '/v4/compute/instances/1', label: 'compute_x' },
        secondary_entity: null,
        action: 'compute_boot',
        description: 'a "compute" \\ thing\n',
        capabilities: ['Compute Interfaces', 'GPU Computes', 'Linodes'],
        scopes: 'computes:read_write events:read_only',
        image: 'compute/debian12',
        maintenance_policy: 'compute/migrate',
        interfaces_for_new_computes: 'compute_only',
        nested: [[{ type: 'compute', field: 'compute_id' }, 'compute'], []],
        add_computes: true,
        n: 1.5e3,
        ok: false,
        empty: {},
        unicode: 'caf\u00e9 compute \u2014',
      },
      { errors: [{ reason: 'Compute busy.', field: 'compute_id' }, { reason: 'computed' }] },
      [{ type: 'compute' }, 'compute', ['compute/debian12']],
      'compute',
      { data: [], page: 1, pages: 1, results: 0 },
      { 'a"compute': { 'b\\': 'compute_boot' }, action: 'compute_create' },
      // Brackets and quotes inside strings, before a string of an array.
      { scopes: ['a]"', { type: '[{"compute' }, '}]\\', 'computes:read_write'], type: 'compute' },
      { capabilities: [['Compute', ['x]', 'Computes']], 'GPU Computes'] },
    ];
    for (const a of answers) expect(pw.outText(JSON.stringify(a))).toBe(viaTree(a));
  });

  it('outText: a name after its value in a nested object does not leak into the outer one', () => {
    const a = {
      entity: { type: 'compute', url: '/v4/compute/x' },
      url: '/v4/compute/y',
      type: 'compute',
    };
    expect(pw.outText(JSON.stringify(a))).toBe(viaTree(a));
    expect(JSON.parse(pw.outText(JSON.stringify(a)))).toEqual({
      entity: { type: 'node', url: '/v4/node/x' },
      url: '/v4/node/y',
      type: 'node',
    });
  });

  it('outText: random answers of the API’s words come out as outTree makes them', () => {
    const words = [
      'compute',
      'compute_boot',
      'Compute',
      'compute/debian12',
      '/v4/compute/1',
      'x',
      '[x]{',
      'a\\"compute]',
      '\\',
    ];
    const keys = [
      'type',
      'action',
      'url',
      'image',
      'label',
      'compute_id',
      'reason',
      'capabilities',
      'scopes',
      'field',
      'tags',
    ];
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const tree = (depth: number): unknown => {
      const kind = depth > 3 ? rand(3) : rand(6);
      if (kind === 0) return words[rand(words.length)];
      if (kind === 1) return rand(2) === 0 ? rand(100) : null;
      if (kind === 2) return rand(2) === 0;
      if (kind === 3) return Array.from({ length: rand(4) }, () => tree(depth + 1));
      return Object.fromEntries(
        Array.from({ length: rand(5) }, () => [keys[rand(keys.length)], tree(depth + 1)]),
      );
    };
    for (let i = 0; i < 500; i++) {
      const a = tree(0);
      expect(pw.outText(JSON.stringify(a))).toBe(viaTree(a));
    }
  });

  it('inUrl: only the area segment, images/<word>/ and managed/<word>-settings', () => {
    expect(pw.inUrl('/v4/node/instances?page=2')).toBe('/v4/compute/instances?page=2');
    expect(pw.inUrl('/v4beta/node/instances')).toBe('/v4beta/compute/instances');
    expect(pw.inUrl('/v4/images/node/debian12')).toBe('/v4/images/compute/debian12');
    expect(pw.inUrl('/v4/managed/node-settings/1')).toBe('/v4/managed/compute-settings/1');
    expect(pw.inUrl('/v4/tags/node')).toBe('/v4/tags/node');
    expect(pw.inUrl('/v4/nodebalancers/1')).toBe('/v4/nodebalancers/1');
  });

  it('inUrl: public kernel and image ids in the path, their slash raw or encoded', () => {
    expect(pw.inUrl('/v4/node/kernels/node/6.2.9-x86_64-node160')).toBe(
      '/v4/compute/kernels/compute/6.2.9-x86_64-compute160',
    );
    expect(pw.inUrl('/v4/node/kernels/node%2F6.2.9-x86_64-node160')).toBe(
      '/v4/compute/kernels/compute%2F6.2.9-x86_64-compute160',
    );
    expect(pw.inUrl('/v4/node/kernels/grub2')).toBe('/v4/compute/kernels/grub2');
    expect(pw.inUrl('/v4/images/node%2fdebian12')).toBe('/v4/images/compute%2fdebian12');
    expect(pw.inUrl('/v4/images/private%2F12')).toBe('/v4/images/private%2F12');
    expect(pw.inUrl('/v4/images/nodes')).toBe('/v4/images/nodes');
  });

  it('scopes: the plural area in scope strings and headers', () => {
    expect(pw.outScopes('computes:read_write events:read_only')).toBe(
      'nodes:read_write events:read_only',
    );
  });
});

describe('STRATUS_PRODUCT_WORD=acme: the catalogue speaks the word, the user is left alone', () => {
  let t: TestApp;
  let plain: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ timing: 'instant', env: { STRATUS_PRODUCT_WORD: 'acme' } });
    plain = await buildTestApp({ timing: 'instant' });
  });
  afterAll(async () => {
    await t.close();
    await plain.close();
  });

  const ids = (r: { body: { data: { id: string | number }[] } }) => r.body.data.map((x) => x.id);
  const labels = (r: { body: { data: { label: string }[] } }) => r.body.data.map((x) => x.label);

  it('getComputeTypes/getComputeType: the shipped type labels answered with the word', async () => {
    const list = await t.get('/v4/acme/types?page_size=500');
    expect(list.status).toBe(200);
    expect(labels(list)).toContain('Acme 2GB');
    expect(labels(list).some((l: string) => /compute/i.test(l))).toBe(false);
    const one = await t.get('/v4/acme/types/g6-standard-1');
    expect(one.body.label).toBe('Acme 2GB');
    // Labels without the word are the catalogue's as shipped.
    expect((await t.get('/v4/acme/types/g6-nanode-1')).body.label).toBe('Nanode 1GB');
  });

  it('getKernels/getKernel: the word in kernel labels, as in their ids', async () => {
    for (const id of ['acme/6.2.9-x86_64-acme160', 'acme%2F6.2.9-x86_64-acme160']) {
      const k = await t.get(`/v4/acme/kernels/${id}`);
      expect(k.status).toBe(200);
      expect(k.body).toMatchObject({
        id: 'acme/6.2.9-x86_64-acme160',
        label: '6.2.9-x86_64-acme160',
      });
    }
    const list = await t.get('/v4/acme/kernels?page_size=500');
    expect(labels(list)).toContain('Latest 64 bit (6.2.9-x86_64-acme160)');
    expect(labels(list).some((l: string) => /compute/i.test(l))).toBe(false);
  });

  it('getComputeTypes: a +contains filter with the word, in each of its cases, finds the types', async () => {
    const shown = await t.get('/v4/acme/types?page_size=500');
    const showing = (v: string) =>
      shown.body.data
        .filter((x: { label: string }) => x.label.toLowerCase().includes(v.toLowerCase()))
        .map((x: { id: string }) => x.id)
        .sort();
    expect(showing('Acme').length).toBeGreaterThan(1);
    for (const value of ['Acme', 'acme', 'ACME', 'Acme 2', 'acme 2gb']) {
      const r = await t.get('/v4/acme/types?page_size=500', {
        filter: { label: { '+contains': value } },
      });
      expect(r.status).toBe(200);
      expect(ids(r).sort()).toEqual(showing(value));
      expect(r.body.results).toBeGreaterThan(0);
    }
    expect(showing('acme 2gb')).toEqual(['g6-standard-1']);
  });

  it('getComputeTypes: equality, +neq, +or and nested filters on the label use the word', async () => {
    const eq = await t.get('/v4/acme/types', { filter: { label: 'Acme 2GB' } });
    expect(ids(eq)).toEqual(['g6-standard-1']);
    const or = await t.get('/v4/acme/types', {
      filter: { '+or': [{ label: 'Acme 2GB' }, { label: { '+or': ['Acme 4GB', 'Nanode 1GB'] } }] },
    });
    expect(ids(or).sort()).toEqual([
      'g6-nanode-1',
      'g6-standard-1',
      'g6-standard-2',
      'nanode-edge-1',
    ]);
    const all = await t.get('/v4/acme/types?page_size=500');
    const neq = await t.get('/v4/acme/types?page_size=500', {
      filter: { label: { '+neq': 'Acme 2GB' }, class: 'standard' },
    });
    expect(ids(neq)).not.toContain('g6-standard-1');
    expect(neq.body.results).toBe(
      all.body.data.filter((x: { class: string }) => x.class === 'standard').length - 1,
    );
    const kernel = await t.get('/v4/acme/kernels', {
      filter: { label: { '+contains': 'x86_64-acme160' } },
    });
    expect(labels(kernel).sort()).toEqual([
      '6.2.9-x86_64-acme160',
      'Latest 64 bit (6.2.9-x86_64-acme160)',
    ]);
  });

  it('getComputeTypes: the word off answers and filters the shipped labels as they are', async () => {
    expect((await plain.get('/v4/compute/types/g6-standard-1')).body.label).toBe('Compute 2GB');
    const shipped = await plain.get('/v4/compute/types?page_size=500', {
      filter: { label: { '+contains': 'Compute' } },
    });
    expect(shipped.body.results).toBeGreaterThan(0);
    for (const l of labels(shipped)) expect(l).toContain('Compute');
    const other = await plain.get('/v4/compute/types', {
      filter: { label: { '+contains': 'Acme' } },
    });
    expect(other.body.results).toBe(0);
  });

  it('user labels: instances, volumes, tags and private images keep their text, filters match it as sent', async () => {
    const mine = ['Compute box', 'Acme box', 'COMPUTE-acme'];
    const created: number[] = [];
    for (const label of mine) {
      const r = await t.post('/v4/acme/instances', {
        region: 'us-east',
        type: 'g6-nanode-1',
        image: 'acme/debian12',
        root_pass: 'a-Strong-pass-123456',
        label: label.replace(/ /g, '-'),
        tags: [label],
      });
      expect(r.status).toBe(200);
      created.push(r.body.id);
      expect(r.body.tags).toEqual([label]);
    }
    const vol = await t.post('/v4/volumes', { label: 'Compute-vol', size: 10, region: 'us-east' });
    expect(vol.status).toBe(200);
    expect(vol.body.label).toBe('Compute-vol');
    await t.settle();
    const disks = await t.get(`/v4/acme/instances/${created[0]}/disks`);
    const img = await t.post('/v4/images', {
      disk_id: disks.body.data[0].id,
      label: 'Compute image',
      description: 'Compute stuff',
    });
    expect(img.status).toBe(200);
    expect(img.body).toMatchObject({ label: 'Compute image', description: 'Compute stuff' });
    await t.settle();

    const list = await t.get('/v4/acme/instances?page_size=500');
    expect(labels(list)).toEqual(['Compute-box', 'Acme-box', 'COMPUTE-acme']);
    const byAcme = await t.get('/v4/acme/instances', {
      filter: { label: { '+contains': 'Acme' } },
    });
    // Matched as sent, case-insensitively, as any text filter: not rewritten to `compute`.
    expect(labels(byAcme)).toEqual(['Acme-box', 'COMPUTE-acme']);
    const byCompute = await t.get('/v4/acme/instances', { filter: { label: 'Compute-box' } });
    expect(ids(byCompute)).toEqual([created[0]]);
    const tags = await t.get('/v4/tags');
    expect(labels(tags).sort()).toEqual(['Acme box', 'COMPUTE-acme', 'Compute box']);
    expect((await t.get(`/v4/volumes/${vol.body.id}`)).body.label).toBe('Compute-vol');
    const vols = await t.get('/v4/volumes', { filter: { label: { '+contains': 'Acme' } } });
    expect(vols.body.results).toBe(0);
    const images = await t.get('/v4/images', { filter: { label: { '+contains': 'Acme' } } });
    expect(images.body.results).toBe(0);
    const private_ = await t.get('/v4/images', { filter: { label: 'Compute image' } });
    expect(private_.body.data.map((x: { description: string }) => x.description)).toEqual([
      'Compute stuff',
    ]);
  });

  it('getImages: the public images hold no `compute` in their text, so none is translated', async () => {
    // If the shipped images ever say `compute` in their label, vendor or description, the
    // product word must learn to translate them there (and their filters) per record.
    const list = await plain.get('/v4/images?page_size=500');
    const publics = list.body.data.filter((x: { is_public: boolean }) => x.is_public);
    expect(publics.length).toBeGreaterThan(0);
    for (const i of publics)
      for (const f of [i.label, i.vendor, i.description])
        expect(/compute/i.test(f ?? '')).toBe(false);
  });
});

describe('ProductWord (node): catalogue text', () => {
  const pw = new ProductWord('node');

  it('textToWord: the word in its three cases, standalone, digits may touch it', () => {
    expect(pw.textToWord('Compute 2GB')).toBe('Node 2GB');
    expect(pw.textToWord('6.2.9-x86_64-compute160')).toBe('6.2.9-x86_64-node160');
    expect(pw.textToWord('COMPUTE Computes computed Computer')).toBe(
      'NODE Nodes computed Computer',
    );
  });

  it('textToCanon: the word back, never inside another word (Nanode, NodeBalancer)', () => {
    expect(pw.textToCanon('Node 2GB')).toBe('Compute 2GB');
    expect(pw.textToCanon('node NODE x86_64-node160')).toBe('compute COMPUTE x86_64-compute160');
    expect(pw.textToCanon('Nanode 1GB NodeBalancer nodes')).toBe(
      'Nanode 1GB NodeBalancer computes',
    );
  });

  it('inFilter: catalogue text fields of the operation only; values as sent or with the word as compute', () => {
    const f = { label: { '+contains': 'Node' }, class: 'node' };
    expect(JSON.parse(pw.inFilter(JSON.stringify(f), ['label']))).toEqual({
      label: { '+or': [{ '+contains': 'Node' }, { '+contains': 'Compute' }] },
      class: 'node',
    });
    expect(JSON.parse(pw.inFilter(JSON.stringify(f)))).toEqual(f);
    expect(
      JSON.parse(
        pw.inFilter(JSON.stringify({ label: { '+neq': 'Node 2GB', '+gt': 'Node' } }), ['label']),
      ),
    ).toEqual({
      label: {
        '+and': [
          { '+and': [{ '+neq': 'Node 2GB' }, { '+neq': 'Compute 2GB' }] },
          { '+gt': 'Compute' },
        ],
      },
    });
    // Nothing of the word: the filter as sent, so its own checks answer a bad one.
    const bad = { label: { '+contains': 3 }, '+or': [{ label: 'Nanode 1GB' }] };
    expect(JSON.parse(pw.inFilter(JSON.stringify(bad), ['label']))).toEqual(bad);
  });
});
