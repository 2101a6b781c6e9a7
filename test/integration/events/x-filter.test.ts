import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueData } from '../../../src/modules/catalogue/catalogue.data.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

/** X-Filter through a real collection: the public catalogue of instance types. */
describe('X-Filter on /v4/compute/types', () => {
  let t: TestApp;
  const types = catalogueData().types;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const ids = async (filter: unknown): Promise<string[]> => {
    const r = await t.get('/v4/compute/types?page_size=500', { token: null, filter });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.results).toBe(r.body.data.length);
    return r.body.data.map((x: { id: string }) => x.id);
  };
  const sorted = (xs: string[]) => [...xs].sort();
  const where = (p: (x: (typeof types)[number]) => boolean) =>
    sorted(types.filter(p).map((x) => x.id));

  it('getComputeTypes: equality, several keys ANDed and the spec example', async () => {
    expect(sorted(await ids({ class: 'highmem' }))).toEqual(where((x) => x.class === 'highmem'));
    expect(sorted(await ids({ class: 'standard', vcpus: 8 }))).toEqual(
      where((x) => x.class === 'standard' && x.vcpus === 8),
    );
    const example = {
      '+or': [
        { '+or': [{ class: 'standard' }, { class: 'highmem' }] },
        { '+and': [{ vcpus: { '+gte': 12 } }, { vcpus: { '+lte': 20 } }] },
      ],
    };
    const expected = where(
      (x) => x.class === 'standard' || x.class === 'highmem' || (x.vcpus >= 12 && x.vcpus <= 20),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(sorted(await ids(example))).toEqual(expected);
  });

  it('getComputeTypes: comparisons, +contains, +neq and ordering', async () => {
    expect(sorted(await ids({ memory: { '+gt': 65536 } }))).toEqual(where((x) => x.memory > 65536));
    expect(sorted(await ids({ gpus: { '+gte': 1 }, vcpus: { '+lt': 20 } }))).toEqual(
      where((x) => x.gpus >= 1 && x.vcpus < 20),
    );
    expect(sorted(await ids({ label: { '+contains': 'DEDICATED' } }))).toEqual(
      where((x) => x.label.toLowerCase().includes('dedicated')),
    );
    expect(sorted(await ids({ class: { '+neq': 'standard' } }))).toEqual(
      where((x) => x.class !== 'standard'),
    );
    const desc = await ids({ '+order_by': 'memory', '+order': 'desc', class: 'dedicated' });
    const memories = desc.map((id) => types.find((x) => x.id === id)?.memory ?? 0);
    expect(memories).toEqual([...memories].sort((a, b) => b - a));
    const asc = await ids({ '+order_by': 'vcpus' });
    const vcpus = asc.map((id) => types.find((x) => x.id === id)?.vcpus ?? 0);
    expect(vcpus).toEqual([...vcpus].sort((a, b) => a - b));
  });

  it('getComputeTypes: a bad filter is a 400 on X-Filter', async () => {
    const cases: [unknown, string][] = [
      [{ region: 'us-east' }, 'Cannot filter on region'],
      [{ '+order_by': 'price' }, 'Cannot filter on price'],
      [{ '+order': 'asc' }, '+order requires +order_by'],
      ['{"class":', 'X-Filter must be a JSON object'],
      ['"standard"', 'X-Filter must be a JSON object'],
      [{ vcpus: 'lots' }, 'Filter on vcpus needs a number'],
      [{ class: { '+contains': 3 } }, '+contains on class needs a string'],
    ];
    for (const [filter, reason] of cases) {
      const r = await t.get('/v4/compute/types', { token: null, filter });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ errors: [{ reason, field: 'X-Filter' }] });
    }
  });
});
