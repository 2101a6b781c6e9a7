import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { Sealer } from '../../../src/platform/sealer.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { backend, nbEvents, nodebalancer } from './fixtures.js';
import { CERT, CERT_FINGERPRINT, KEY, OTHER_KEY } from './tls.js';

const fieldsOf = (r: { body: { errors: { field?: string }[] } }) =>
  r.body.errors.map((e) => e.field).sort();

describe('nodebalancer configs', () => {
  let t: TestApp;
  let nbId: number;
  const configs = () => `/v4/nodebalancers/${nbId}/configs`;
  beforeEach(async () => {
    t = await buildTestApp();
    nbId = (await nodebalancer(t)).id;
  });
  afterEach(async () => {
    await t.close();
  });

  it('createNodeBalancerConfig: the reference defaults, with nodebalancer_config_create', async () => {
    const r = await t.post(configs(), {});
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      id: r.body.id,
      port: 80,
      protocol: 'http',
      algorithm: 'roundrobin',
      stickiness: 'none',
      check: 'none',
      check_interval: 31,
      check_timeout: 30,
      check_attempts: 3,
      check_path: '',
      check_body: '',
      check_passive: true,
      proxy_protocol: 'none',
      cipher_suite: 'recommended',
      nodebalancer_id: nbId,
      ssl_commonname: '',
      ssl_fingerprint: '',
      ssl_cert: null,
      ssl_key: null,
      nodes_status: { up: 0, down: 0 },
      udp_check_port: 80,
      udp_session_timeout: 16,
    });
    expect((await t.get(`${configs()}/${r.body.id}`)).body).toEqual(r.body);
    expect((await nbEvents(t, nbId)).at(-1)).toEqual([
      'nodebalancer_config_create',
      'notification',
    ]);
  });

  it('createNodeBalancerConfig: enumerations and bounds of the reference', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ port: 0 }, 'port'],
      [{ port: 65536 }, 'port'],
      [{ protocol: 'quic' }, 'protocol'],
      [{ udp_check_port: 0 }, 'udp_check_port'],
      [{ udp_check_port: 65536 }, 'udp_check_port'],
      [{ algorithm: 'random' }, 'algorithm'],
      [{ stickiness: 'ip' }, 'stickiness'],
      [{ check: 'ping' }, 'check'],
      [{ check_timeout: 31 }, 'check_timeout'],
      [{ check_attempts: 0 }, 'check_attempts'],
      [{ check_attempts: 31 }, 'check_attempts'],
      [{ proxy_protocol: 'v3' }, 'proxy_protocol'],
      [{ cipher_suite: 'modern' }, 'cipher_suite'],
      [{ check_path: '/a b' }, 'check_path'],
    ];
    for (const [body, field] of bad) {
      const r = await t.post(configs(), body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(r), JSON.stringify(body)).toEqual([field]);
    }
    expect((await t.get(configs())).body.results).toBe(0);
  });

  it('createNodeBalancerConfig: the rules between fields', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ check_interval: 10, check_timeout: 10 }, ['check_interval']],
      [{ proxy_protocol: 'v1' }, ['proxy_protocol']],
      [{ protocol: 'tcp', stickiness: 'http_cookie' }, ['stickiness']],
      [{ check: 'http' }, ['check_path']],
      [{ check: 'http_body', check_path: '/health' }, ['check_body']],
    ];
    for (const [body, fields] of cases) {
      const r = await t.post(configs(), body);
      expect(fieldsOf(r), JSON.stringify(body)).toEqual(fields);
    }
    const ok = await t.post(configs(), {
      port: 443,
      protocol: 'tcp',
      proxy_protocol: 'v2',
      check: 'http_body',
      check_path: '/health?full=1',
      check_body: 'ok',
      check_interval: 5,
      check_timeout: 4,
      stickiness: 'table',
      check_passive: false,
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ proxy_protocol: 'v2', check_passive: false, check_body: 'ok' });
  });

  it('createNodeBalancerConfig: a port is used by one config of the NodeBalancer only', async () => {
    await t.post(configs(), { port: 8080 });
    const dup = await t.post(configs(), { port: 8080 });
    expect(dup.status).toBe(400);
    expect(fieldsOf(dup)).toEqual(['port']);
    const other = await nodebalancer(t);
    expect((await t.post(`/v4/nodebalancers/${other.id}/configs`, { port: 8080 })).status).toBe(
      200,
    );
  });

  it('createNodeBalancerConfig: https needs a real X.509 certificate and its key; both are redacted', async () => {
    const missing = await t.post(configs(), { protocol: 'https', port: 443 });
    expect(fieldsOf(missing)).toEqual(['ssl_cert', 'ssl_key']);
    const alone = await t.post(configs(), { protocol: 'https', port: 443, ssl_cert: CERT });
    expect(fieldsOf(alone)).toEqual(['ssl_key']);
    const junk = await t.post(configs(), {
      protocol: 'https',
      ssl_cert: '-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----',
      ssl_key: 'not a key',
    });
    expect(fieldsOf(junk)).toEqual(['ssl_cert', 'ssl_key']);
    const mismatch = await t.post(configs(), {
      protocol: 'https',
      ssl_cert: CERT,
      ssl_key: OTHER_KEY,
    });
    expect(mismatch.body.errors).toEqual([
      { field: 'ssl_key', reason: 'ssl_key does not match the certificate' },
    ]);
    const ok = await t.post(configs(), {
      protocol: 'https',
      port: 443,
      ssl_cert: CERT,
      ssl_key: KEY,
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({
      ssl_cert: '<REDACTED>',
      ssl_key: '<REDACTED>',
      ssl_commonname: 'www.example.com',
      ssl_fingerprint: CERT_FINGERPRINT,
    });
    // The key is stored sealed, never in clear.
    const sealedOf = async () =>
      (
        await t.ctx.db.db
          .selectFrom('nodebalancer_configs')
          .selectAll()
          .where('id', '=', ok.body.id)
          .executeTakeFirstOrThrow()
      ).ssl_key_sealed;
    const row = await t.ctx.db.db
      .selectFrom('nodebalancer_configs')
      .selectAll()
      .where('id', '=', ok.body.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('PRIVATE KEY');
    const sealer = new Sealer(t.ctx.db, t.ctx.config.encryptionKey);
    expect(await sealer.open(row.ssl_key_sealed as string)).toBe(KEY);
    // Kept when neither is sent again; dropped when the protocol leaves https.
    const kept = await t.put(`${configs()}/${ok.body.id}`, { cipher_suite: 'legacy' });
    expect(kept.body).toMatchObject({ ssl_cert: '<REDACTED>', cipher_suite: 'legacy' });
    expect(await sealer.open((await sealedOf()) as string)).toBe(KEY);
    const http = await t.put(`${configs()}/${ok.body.id}`, { protocol: 'http' });
    expect(await sealedOf()).toBeNull();
    expect(http.body).toMatchObject({ ssl_cert: null, ssl_key: null, ssl_commonname: '' });
    const back = await t.put(`${configs()}/${ok.body.id}`, { protocol: 'https' });
    expect(fieldsOf(back)).toEqual(['ssl_cert', 'ssl_key']);
  });

  it('createNodeBalancer: an https config given inline keeps its TLS key sealed too', async () => {
    const b = await backend(t);
    const r = await t.post('/v4/nodebalancers', {
      region: 'us-east',
      configs: [
        {
          protocol: 'https',
          port: 443,
          ssl_cert: CERT,
          ssl_key: KEY,
          nodes: [{ address: `${b.ip}:80`, label: 'web' }],
        },
      ],
    });
    expect(r.status, r.text).toBe(200);
    const row = await t.ctx.db.db
      .selectFrom('nodebalancer_configs')
      .selectAll()
      .where('nodebalancer_id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    expect(row.ssl_key_sealed).toMatch(/^v1:/);
    expect(
      await new Sealer(t.ctx.db, t.ctx.config.encryptionKey).open(row.ssl_key_sealed as string),
    ).toBe(KEY);
  });

  it('createNodeBalancerConfig: http and tcp take no certificate', async () => {
    for (const protocol of ['http', 'tcp']) {
      const r = await t.post(configs(), { protocol, ssl_cert: CERT, ssl_key: KEY });
      expect(fieldsOf(r), protocol).toEqual(['ssl_cert', 'ssl_key']);
    }
  });

  it('createNodeBalancerConfig: udp takes session stickiness and no passive checks by default', async () => {
    const r = await t.post(configs(), { port: 53, protocol: 'udp', udp_check_port: 8053 });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      protocol: 'udp',
      algorithm: 'roundrobin',
      stickiness: 'session',
      check_passive: false,
      proxy_protocol: 'none',
      udp_check_port: 8053,
      udp_session_timeout: 16,
      ssl_cert: null,
    });
    expect((await t.get(`${configs()}/${r.body.id}`)).body).toEqual(r.body);
    const hash = await t.post(configs(), {
      port: 54,
      protocol: 'udp',
      algorithm: 'ring_hash',
      stickiness: 'source_ip',
    });
    expect(hash.body).toMatchObject({ algorithm: 'ring_hash', stickiness: 'source_ip' });
  });

  it('createNodeBalancerConfig: the fields and values that go with udp and with the others', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ protocol: 'udp', algorithm: 'source' }, ['algorithm']],
      [{ protocol: 'udp', stickiness: 'table' }, ['stickiness']],
      [{ protocol: 'udp', stickiness: 'http_cookie' }, ['stickiness']],
      [{ protocol: 'udp', check_passive: true }, ['check_passive']],
      [{ protocol: 'udp', proxy_protocol: 'v1' }, ['proxy_protocol']],
      [{ protocol: 'udp', ssl_cert: CERT, ssl_key: KEY }, ['ssl_cert', 'ssl_key']],
      [{ protocol: 'tcp', algorithm: 'ring_hash' }, ['algorithm']],
      [{ protocol: 'http', stickiness: 'session' }, ['stickiness']],
      [{ protocol: 'tcp', stickiness: 'source_ip' }, ['stickiness']],
    ];
    for (const [body, fields] of cases) {
      const r = await t.post(configs(), body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(r), JSON.stringify(body)).toEqual(fields);
    }
    expect((await t.get(configs())).body.results).toBe(0);
  });

  it('updateNodeBalancerConfig: switching to and from udp resets what the new protocol does not take', async () => {
    const c = (await t.post(configs(), { protocol: 'tcp', algorithm: 'source' })).body;
    const udp = await t.put(`${configs()}/${c.id}`, { protocol: 'udp', udp_check_port: 9000 });
    expect(udp.status, udp.text).toBe(200);
    expect(udp.body).toMatchObject({
      protocol: 'udp',
      algorithm: 'roundrobin',
      stickiness: 'session',
      check_passive: false,
      udp_check_port: 9000,
    });
    const hash = await t.put(`${configs()}/${c.id}`, { algorithm: 'ring_hash' });
    expect(hash.body).toMatchObject({ algorithm: 'ring_hash', stickiness: 'session' });
    const back = await t.put(`${configs()}/${c.id}`, { protocol: 'tcp' });
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({
      protocol: 'tcp',
      algorithm: 'roundrobin',
      stickiness: 'none',
      check_passive: true,
      udp_check_port: 9000,
    });
    const refused = await t.put(`${configs()}/${c.id}`, { protocol: 'udp', check_passive: true });
    expect(fieldsOf(refused)).toEqual(['check_passive']);
    expect((await t.get(`${configs()}/${c.id}`)).body.protocol).toBe('tcp');
  });

  it('updateNodeBalancerConfig: changes the fields given, checks the result, nodebalancer_config_update', async () => {
    const c = (await t.post(configs(), { port: 80 })).body;
    await t.post(configs(), { port: 81 });
    const r = await t.put(`${configs()}/${c.id}`, { algorithm: 'source', check_timeout: 10 });
    expect(r.body).toMatchObject({
      port: 80,
      algorithm: 'source',
      check_timeout: 10,
      check_interval: 31,
    });
    expect(fieldsOf(await t.put(`${configs()}/${c.id}`, { port: 81 }))).toEqual(['port']);
    expect(fieldsOf(await t.put(`${configs()}/${c.id}`, { check_interval: 10 }))).toEqual([
      'check_interval',
    ]);
    expect((await t.put(`${configs()}/${c.id}`, { port: 80 })).status).toBe(200);
    expect(
      (await nbEvents(t, nbId)).filter((e) => e[0] === 'nodebalancer_config_update'),
    ).toHaveLength(2);
    expect((await t.put(`${configs()}/999`, {})).status).toBe(404);
  });

  it('deleteNodeBalancerConfig: deletes its nodes too, with nodebalancer_config_delete', async () => {
    const b = await backend(t);
    const c = (await t.post(configs(), {})).body;
    await t.post(`${configs()}/${c.id}/nodes`, { address: `${b.ip}:80`, label: 'web-1' });
    expect((await t.del(`${configs()}/${c.id}`)).status).toBe(200);
    expect((await t.get(`${configs()}/${c.id}`)).status).toBe(404);
    expect(await t.ctx.db.db.selectFrom('nodebalancer_nodes').selectAll().execute()).toEqual([]);
    expect((await nbEvents(t, nbId)).at(-1)).toEqual([
      'nodebalancer_config_delete',
      'notification',
    ]);
    expect((await t.del(`${configs()}/${c.id}`)).status).toBe(404);
  });

  it('getNodeBalancerConfigs, getNodeBalancerConfigNodes: nothing is filterable (400 Cannot filter on)', async () => {
    const c = (await t.post(configs(), {})).body;
    for (const url of [configs(), `${configs()}/${c.id}/nodes`]) {
      const r = await t.get(url, { filter: { port: 80 } });
      expect(r.status, url).toBe(400);
      expect(r.body.errors[0]).toMatchObject({ field: 'X-Filter' });
    }
  });

  it('getNodeBalancerConfig: a config of another NodeBalancer is 404 under this one', async () => {
    const other = await nodebalancer(t);
    const c = (await t.post(`/v4/nodebalancers/${other.id}/configs`, {})).body;
    expect((await t.get(`${configs()}/${c.id}`)).status).toBe(404);
    expect((await t.get(`${configs()}/${c.id}/nodes`)).status).toBe(404);
  });
});

describe('nodebalancer nodes', () => {
  let t: TestApp;
  let nbId: number;
  let configId: number;
  const nodes = () => `/v4/nodebalancers/${nbId}/configs/${configId}/nodes`;
  beforeEach(async () => {
    t = await buildTestApp();
    nbId = (await nodebalancer(t)).id;
    configId = (await t.post(`/v4/nodebalancers/${nbId}/configs`, {})).body.id;
  });
  afterEach(async () => {
    await t.close();
  });

  it('createNodeBalancerNode: a private address of an instance in the region; weight 50 and mode accept by default', async () => {
    const b = await backend(t);
    const r = await t.post(nodes(), { address: `${b.ip}:8080`, label: 'web-1.a' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      id: r.body.id,
      address: `${b.ip}:8080`,
      label: 'web-1.a',
      status: 'UP',
      weight: 50,
      mode: 'accept',
      config_id: configId,
      nodebalancer_id: nbId,
      vpc_config_id: null,
    });
    expect((await t.get(`${nodes()}/${r.body.id}`)).body).toEqual(r.body);
    expect((await nbEvents(t, nbId)).at(-1)).toEqual(['nodebalancer_node_create', 'notification']);
  });

  it('createNodeBalancerNode: refuses addresses that are not a private address of the account in the region', async () => {
    const east = await backend(t);
    // Private ranges repeat across regions: the third us-west address is used in no us-east one.
    await backend(t, { region: 'us-west' });
    await backend(t, { region: 'us-west' });
    const west = await backend(t, { region: 'us-west' });
    const other = await bootstrapAccount(t.ctx.db, t.clock, {
      email: 'o@example.com',
      username: 'o',
    });
    const theirs = await backend(t, { token: other.token });
    const pub = (await t.get(`/v4/compute/instances/${east.id}`)).body.ipv4[0];
    for (const address of [
      `${pub}:80`,
      `${west.ip}:80`,
      `${theirs.ip}:80`,
      '192.168.255.254:80',
      east.ip,
      `${east.ip}:0`,
      `${east.ip}:65536`,
      'web:80',
    ]) {
      const r = await t.post(nodes(), { address, label: 'node-1' });
      expect(r.status, address).toBe(400);
      expect(fieldsOf(r), address).toEqual(['address']);
    }
    expect((await t.get(nodes())).body.results).toBe(0);
  });

  it('createNodeBalancerNode: label, weight and mode of the reference; address and label required', async () => {
    const b = await backend(t);
    const bad: [Record<string, unknown>, string[]][] = [
      [{ address: `${b.ip}:80`, label: 'ab' }, ['label']],
      [{ address: `${b.ip}:80`, label: 'a b c' }, ['label']],
      [{ address: `${b.ip}:80`, label: 'node', weight: 0 }, ['weight']],
      [{ address: `${b.ip}:80`, label: 'node', weight: 256 }, ['weight']],
      [{ address: `${b.ip}:80`, label: 'node', mode: 'off' }, ['mode']],
      [{}, ['address', 'label']],
    ];
    for (const [body, fields] of bad) {
      expect(fieldsOf(await t.post(nodes(), body)), JSON.stringify(body)).toEqual(fields);
    }
  });

  it('createNodeBalancerNode: an address is a node of a config once', async () => {
    const b = await backend(t);
    await t.post(nodes(), { address: `${b.ip}:80`, label: 'node-1' });
    expect(fieldsOf(await t.post(nodes(), { address: `${b.ip}:80`, label: 'node-2' }))).toEqual([
      'address',
    ]);
    expect((await t.post(nodes(), { address: `${b.ip}:81`, label: 'node-2' })).status).toBe(200);
  });

  it('node status: UP while the instance runs, DOWN once it is off; nodes_status counts them', async () => {
    const b1 = await backend(t);
    const b2 = await backend(t);
    const n1 = (await t.post(nodes(), { address: `${b1.ip}:80`, label: 'node-1' })).body;
    await t.post(nodes(), { address: `${b2.ip}:80`, label: 'node-2' });
    const config = `/v4/nodebalancers/${nbId}/configs/${configId}`;
    expect((await t.get(config)).body.nodes_status).toEqual({ up: 2, down: 0 });
    await t.post(`/v4/compute/instances/${b1.id}/shutdown`);
    await t.settle();
    expect((await t.get(`${nodes()}/${n1.id}`)).body.status).toBe('DOWN');
    expect((await t.get(config)).body.nodes_status).toEqual({ up: 1, down: 1 });
    await t.del(`/v4/compute/instances/${b2.id}`);
    await t.settle();
    expect((await t.get(config)).body.nodes_status).toEqual({ up: 0, down: 2 });
  });

  it('updateNodeBalancerNode: label, address, weight, mode, with nodebalancer_node_update', async () => {
    const b1 = await backend(t);
    const b2 = await backend(t);
    const n = (await t.post(nodes(), { address: `${b1.ip}:80`, label: 'node-1' })).body;
    const r = await t.put(`${nodes()}/${n.id}`, {
      address: `${b2.ip}:81`,
      weight: 200,
      mode: 'drain',
    });
    expect(r.body).toMatchObject({
      address: `${b2.ip}:81`,
      label: 'node-1',
      weight: 200,
      mode: 'drain',
    });
    expect(fieldsOf(await t.put(`${nodes()}/${n.id}`, { address: '10.1.1.1:80' }))).toEqual([
      'address',
    ]);
    expect((await nbEvents(t, nbId)).at(-1)).toEqual(['nodebalancer_node_update', 'notification']);
    expect((await t.put(`${nodes()}/999`, { weight: 1 })).status).toBe(404);
  });

  it('deleteNodeBalancerConfigNode: removes the node, with nodebalancer_node_delete', async () => {
    const b = await backend(t);
    const n = (await t.post(nodes(), { address: `${b.ip}:80`, label: 'node-1' })).body;
    expect((await t.del(`${nodes()}/${n.id}`)).status).toBe(200);
    expect((await t.get(`${nodes()}/${n.id}`)).status).toBe(404);
    expect((await nbEvents(t, nbId)).at(-1)).toEqual(['nodebalancer_node_delete', 'notification']);
  });

  it('rebuildNodeBalancerConfig: the config and its whole node list in one call', async () => {
    const b = await backend(t);
    const keep = (await t.post(nodes(), { address: `${b.ip}:80`, label: 'keep-me' })).body;
    const drop = (await t.post(nodes(), { address: `${b.ip}:81`, label: 'drop-me' })).body;
    const r = await t.post(`/v4/nodebalancers/${nbId}/configs/${configId}/rebuild`, {
      port: 8443,
      algorithm: 'leastconn',
      nodes: [
        { id: keep.id, address: `${b.ip}:80`, label: 'kept', weight: 5 },
        { address: `${b.ip}:82`, label: 'new-one' },
      ],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      id: configId,
      port: 8443,
      algorithm: 'leastconn',
      nodes_status: { up: 2, down: 0 },
    });
    const list = (await t.get(nodes())).body.data;
    expect(
      list.map((n: { id: number; label: string; weight: number }) => [n.label, n.weight]),
    ).toEqual([
      ['kept', 5],
      ['new-one', 50],
    ]);
    expect(list[0].id).toBe(keep.id);
    expect(list.map((n: { id: number }) => n.id)).not.toContain(drop.id);
    expect((await nbEvents(t, nbId)).at(-1)).toEqual([
      'nodebalancer_config_update',
      'notification',
    ]);
  });

  it('rebuildNodeBalancerConfig: kept nodes may trade addresses and keep what their entry leaves out', async () => {
    const b = await backend(t);
    const n1 = (await t.post(nodes(), { address: `${b.ip}:80`, label: 'node-1' })).body;
    const n2 = (
      await t.post(nodes(), { address: `${b.ip}:81`, label: 'node-2', weight: 7, mode: 'drain' })
    ).body;
    const r = await t.post(`/v4/nodebalancers/${nbId}/configs/${configId}/rebuild`, {
      nodes: [
        { id: n1.id, address: `${b.ip}:81`, label: 'node-1' },
        { id: n2.id, address: `${b.ip}:80`, label: 'node-2' },
      ],
    });
    expect(r.status, r.text).toBe(200);
    const list = (await t.get(nodes())).body.data;
    expect(list.map((n: { id: number; address: string }) => [n.id, n.address])).toEqual([
      [n1.id, `${b.ip}:81`],
      [n2.id, `${b.ip}:80`],
    ]);
    // What a kept node's entry leaves out stays as it was.
    expect(list[1]).toMatchObject({ weight: 7, mode: 'drain' });
    const n3 = (await t.post(nodes(), { address: `${b.ip}:82`, label: 'node-3' })).body;
    expect(n3.id).toBeGreaterThan(n2.id);
  });

  it('rebuildNodeBalancerConfig: nothing changes when a field or a node fails', async () => {
    const b = await backend(t);
    const n = (await t.post(nodes(), { address: `${b.ip}:80`, label: 'node-1' })).body;
    const other = (await t.post(`/v4/nodebalancers/${nbId}/configs`, { port: 81 })).body;
    const r = await t.post(`/v4/nodebalancers/${nbId}/configs/${configId}/rebuild`, {
      check_interval: 3,
      check_timeout: 5,
      nodes: [
        { id: 9999, address: `${b.ip}:80`, label: 'node-1' },
        { address: '10.0.0.1:80', label: 'node-2' },
        { address: `${b.ip}:83`, label: 'node-3' },
        { address: `${b.ip}:83`, label: 'node-4' },
      ],
    });
    expect(fieldsOf(r)).toEqual([
      'check_interval',
      'nodes.0.id',
      'nodes.1.address',
      'nodes.3.address',
    ]);
    expect((await t.get(nodes())).body.data.map((x: { id: number }) => x.id)).toEqual([n.id]);
    expect(
      fieldsOf(await t.post(`/v4/nodebalancers/${nbId}/configs/${configId}/rebuild`, {})),
    ).toEqual(['nodes']);
    const port = await t.post(`/v4/nodebalancers/${nbId}/configs/${configId}/rebuild`, {
      port: other.port,
      nodes: [],
    });
    expect(fieldsOf(port)).toEqual(['port']);
  });

  it('rebuildNodeBalancerConfig: needs add_nodebalancers and read_write on the NodeBalancer', async () => {
    const rw = [{ type: 'nodebalancer', id: nbId, permissions: 'read_write' as const }];
    const noAdd = await createTestUser(t, { grants: rw });
    const url = `/v4/nodebalancers/${nbId}/configs/${configId}/rebuild`;
    expect((await t.post(url, { nodes: [] }, { token: noAdd.token })).status).toBe(403);
    const ro = await createTestUser(t, {
      global: { add_nodebalancers: true },
      grants: [{ type: 'nodebalancer', id: nbId, permissions: 'read_only' }],
    });
    expect((await t.post(url, { nodes: [] }, { token: ro.token })).status).toBe(403);
    const ok = await createTestUser(t, { global: { add_nodebalancers: true }, grants: rw });
    expect((await t.post(url, { nodes: [] }, { token: ok.token })).status).toBe(200);
  });

  it("getNodeBalancerNode: needs nodebalancers:read_only (the reference's read_write is wrong)", async () => {
    const b = await backend(t);
    const n = (await t.post(nodes(), { address: `${b.ip}:80`, label: 'node-1' })).body;
    const ro = await createTestUser(t, { restricted: false, scopes: 'nodebalancers:read_only' });
    const r = await t.get(`${nodes()}/${n.id}`, { token: ro.token });
    expect(r.status).toBe(200);
    expect(r.headers['x-accepted-oauth-scopes']).toBe('nodebalancers:read_only');
    const none = await createTestUser(t, { restricted: false, scopes: 'volumes:read_only' });
    expect((await t.get(`${nodes()}/${n.id}`, { token: none.token })).status).toBe(401);
  });
});
