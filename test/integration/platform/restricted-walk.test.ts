import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { changed, type Known, StateDigest, seedFixtures } from '../../fuzz/fixtures.js';
import { type Operation, operations, type Schema } from '../../fuzz/operations.js';
import { sshKey } from '../identity/fixtures.js';
import { CERT, KEY } from '../object-storage/certs.js';

/**
 * The grants model, walked over every operation of the generated document (`/v4/openapi.json`),
 * so that operations and areas added later are walked too. The account holds one entity of
 * each kind (the fuzzer's fixtures and a few more); the caller is a restricted user with no
 * grants and a `*` token. What such a user may do (docs/robustness.md, "Security"):
 *
 * - everything under `/profile`: it is about the user itself;
 * - GETs that show no more than an outsider (the owner of another, empty account) sees: the
 *   public catalogue, lists filtered by grants (empty), public images;
 * - nothing else: every other request is refused (401, 403, 404 or 400), and no refused
 *   request changes any row of any table.
 *
 * A 401 or 403 comes only from the token and grants checks. A 404 or 400 may also mean that the
 * request was wrong for anyone, so each of those is made by the account's owner too (GETs on
 * the same app, writes on a twin app with the same fixtures): a request the owner can make and
 * the restricted user cannot is a refusal by the grants. A new operation whose refusal cannot be
 * proven that way fails the walk until it gets a body in HINTS or a reason in UNPROVEN.
 */

/** Operations a restricted user without grants may make besides `/profile`. */
const ALLOWED_WRITES: Record<string, string> = {
  createTicket:
    'every user of the account may open a support ticket; a restricted user sees only the tickets it opened',
};

/** Refusals (404 or 400) that no request of the owner can show to come from the grants. */
const UNPROVEN: Record<string, string> = {
  deleteVLAN:
    'needs a VLAN no interface names any more; the refusals of a VLAN delete do not depend on grants',
  acceptServiceTransfer: 'needs a pending transfer offered by another account',
  acceptEntityTransfer: 'needs a pending transfer offered by another account',
  mutateComputeInstance: "the catalogue has no upgrade for the fixture instance's type",
  getSharegroupMember: 'needs a member: a token drawn by another account',
  getSharegroupToken: "needs a token: the consumer's, drawn for another account's group",
  getSharegroupByToken: "needs a token: the consumer's, drawn for another account's group",
  getSharegroupImagesByToken: "needs a token: the consumer's, drawn for another account's group",
};

const STRONG = 'c0rrect-Horse-battery-staple!';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** Values by field name that pass the first checks of the services. */
function byName(name: string, known: Known): unknown {
  const table: Record<string, unknown> = {
    region: 'us-east',
    type: 'g6-nanode-1',
    image: 'compute/debian12',
    images: ['compute/debian12'],
    root_pass: STRONG,
    password: STRONG,
    label: `walk-${name || 'x'}`,
    email: 'walk@example.com',
    username: 'walkuser',
    cluster: 'us-east-1',
    protocol: 'TCP',
    ipv4: '10.0.1.0/24',
    address: known.address?.[0] ?? '192.0.2.1',
    rdns: 'walk.example.com',
    scopes: '*',
    redirect_uri: 'https://example.com/cb',
    script: '#!/bin/bash\necho hi',
    ssh_key: sshKey('ed25519'),
    name: 'walk.txt',
    method: 'GET',
    acl: 'private',
    comments: 'walk',
    card_number: '4111111111111111',
    cvv: '123',
    expiry_month: 12,
    expiry_year: 2030,
    usd: '10.00',
  };
  return table[name];
}

interface Hint {
  /** The body (instead of the required fields filled by name). */
  body?: (k: Known) => unknown;
  /** Path parameters whose name another area uses too (`clientId`). */
  params?: (k: Known) => Record<string, string | undefined>;
  /** Brings the owner's twin into the state the operation needs, before the proof. */
  prepare?: (app: TestApp, k: Known) => Promise<void>;
}

const shutDown = async (app: TestApp, k: Known) => {
  await app.post(`/v4/compute/instances/${k.computeId?.[0]}/shutdown`);
  await app.settle();
};
/** `clientId` of Longview operations (OAuth clients' `clientId` is another id). */
const longviewClient = (k: Known) => ({ clientId: k.longviewClientId?.[0] });
const id = (k: Known, name: string) => Number(k[name]?.[0]);
const instance = (k: Known) => `/v4/compute/instances/${k.computeId?.[0]}`;
/** Room on the instance for another disk: the main disk shrunk to 5000 MB (offline). */
const freeSpace = async (app: TestApp, k: Known) => {
  await shutDown(app, k);
  await app.post(`${instance(k)}/disks/${k.diskId?.[0]}/resize`, { size: 5000 });
  await app.settle();
};
/** Public IPv4 addresses beyond the first removed (one more may be added). */
const onePublicIp = async (app: TestApp, k: Known) => {
  const ips = await app.get(`${instance(k)}/ips`);
  for (const ip of ips.body.ipv4.public.slice(1)) await app.del(`${instance(k)}/ips/${ip.address}`);
  await app.settle();
};
const enableBackups = async (app: TestApp, k: Known) => {
  await app.post(`${instance(k)}/backups/enable`);
  await app.settle();
};

/** The instance of the compute generation and its public (0) or VLAN (1) interface. */
const modern = (n: number) => (k: Known) => ({
  computeId: k.modernComputeId?.[0],
  interfaceId: k.modernInterfaceId?.[n],
});

/** Operations whose required fields alone are not a request the owner can make. */
const HINTS: Record<string, Hint> = {
  // A NodeBalancer in a VPC (moreFixtures) and its VPC configuration.
  getNodeBalancerVpcConfig: {
    params: (k) => ({ nodeBalancerId: k.vpcNodeBalancerId?.[0], vpcConfigId: k.vpcConfigId?.[0] }),
  },
  putSharegroupImage: { params: (k) => ({ imageId: k.sharedImageId?.[0] }) },
  deleteSharegroupImage: { params: (k) => ({ imageId: k.sharedImageId?.[0] }) },
  postSharegroupImages: {
    params: (k) => ({ sharegroupId: k.sharegroupId?.[1] }),
    body: (k) => ({ images: [{ id: k.imageId?.[0] }] }),
  },
  getComputeInterfaces: { params: modern(0) },
  getComputeInterface: { params: modern(0) },
  getComputeInterfaceFirewalls: { params: modern(0) },
  getComputeInterfaceSettings: { params: modern(0) },
  updateComputeInterfaceSettings: { params: modern(0), body: () => ({ network_helper: true }) },
  addComputeInterface: { params: modern(0), body: () => ({ vlan: { vlan_label: 'walk-vlan2' } }) },
  updateComputeInterface: { params: modern(0), body: () => ({ default_route: { ipv4: true } }) },
  deleteComputeInterface: { params: modern(1) },
  upgradeComputeInterfaces: {
    body: (k) => ({ config_id: id(k, 'configId'), dry_run: true }),
  },
  allocateIP: { body: (k) => ({ type: 'ipv4', public: true, compute_id: id(k, 'computeId') }) },
  addComputeIP: { body: () => ({ type: 'ipv4', public: true }), prepare: onePublicIp },
  postIPv6Range: {
    body: (k) => ({ prefix_length: 64, compute_id: id(k, 'computeId') }),
    // The account's one range in the region is the fixture's: it goes first.
    prepare: async (app, k) => {
      await app.del(`/v4/networking/ipv6/ranges/${k.range?.[0]}`);
    },
  },
  deleteIPv6Range: {
    // The range postIPv6Range made.
    prepare: async (app, k) => {
      const r = await app.get('/v4/networking/ipv6/ranges');
      k.range = [String(r.body.data[0]?.range).replace(/\/\d+$/, '')];
    },
  },
  assignIPs: {
    body: (k) => ({
      region: 'us-east',
      assignments: [{ address: k.address?.[0], compute_id: id(k, 'computeId') }],
    }),
  },
  assignIPv4s: {
    body: (k) => ({
      region: 'us-east',
      assignments: [{ address: k.address?.[0], compute_id: id(k, 'computeId') }],
    }),
  },
  // The fixture's private image is stored in us-east (its instance's region).
  replicateImage: { body: () => ({ regions: ['us-east', 'us-central'] }) },
  addComputeDisk: { body: () => ({ label: 'walk-disk', size: 10 }), prepare: freeSpace },
  cloneComputeDisk: { prepare: freeSpace },
  resizeDisk: { body: () => ({ size: 6000 }), prepare: freeSpace },
  createSnapshot: { prepare: enableBackups },
  restoreBackup: {
    // cancelBackups removed the fixture's snapshot: take another.
    prepare: async (app, k) => {
      await enableBackups(app, k);
      await app.post(`${instance(k)}/backups`, { label: 'walk-snap-2' });
      await app.settle();
      const b = await app.get(`${instance(k)}/backups`);
      k.backupId = [String(b.body.snapshot.current?.id)];
    },
  },
  addComputeConfigInterface: { body: () => ({ purpose: 'vlan', label: 'walk-vlan' }) },
  createFirewallDevice: {
    body: (k) => ({ type: 'nodebalancer', id: id(k, 'nodeBalancerId') }),
  },
  orderComputeConfigInterfaces: {
    body: (k) => ({ ids: (k.interfaceIds ?? []).map(Number) }),
    prepare: async (app, k) => {
      const r = await app.get(`${instance(k)}/configs/${k.configId?.[0]}/interfaces`);
      k.interfaceIds = r.body.map((i: { id: number }) => String(i.id));
    },
  },
  attachVolume: {
    body: (k) => ({ compute_id: id(k, 'computeId'), config_id: id(k, 'configId') }),
  },
  cloneComputeInstance: { body: () => ({ region: 'us-east', type: 'g6-standard-2' }) },
  resizeComputeInstance: { body: () => ({ type: 'g6-standard-2' }) },
  bootComputeInstance: { prepare: shutDown },
  resetComputePassword: { prepare: shutDown },
  resizeVolume: { body: () => ({ size: 30 }) },
  createVolume: { body: () => ({ label: 'walk-vol', region: 'us-east' }) },
  createVPC: { body: () => ({ label: 'walk-vpc', region: 'us-iad' }) },
  createNodeBalancerConfig: { body: () => ({ port: 8443 }) },
  createNodeBalancerNode: {
    body: (k) => ({ label: 'walk-node', address: `${k.privateAddress?.[0]}:81` }),
  },
  createObjectStorageSSL: { body: () => ({ certificate: CERT, private_key: KEY }) },
  createDomainRecord: { body: () => ({ type: 'A', name: 'walk', target: '192.0.2.10' }) },
  // Templates are the service's, not the account's: a real slug.
  getFirewallTemplate: { params: () => ({ slug: 'public' }) },
  getLongviewClient: { params: longviewClient },
  updateLongviewClient: { params: longviewClient },
  deleteLongviewClient: { params: longviewClient },
  createServiceTransfer: { body: (k) => ({ entities: { computes: [id(k, 'computeId')] } }) },
  createEntityTransfer: { body: (k) => ({ entities: { computes: [id(k, 'computeId')] } }) },
};

/** Proven last on the twin: they remove what the other proofs need. */
const LAST = [
  'closeTicket',
  'rebuildComputeInstance',
  'deleteComputeInstance',
  'cancelObjectStorage',
  'cancelAccount',
];

function typeOf(s: Schema): string | undefined {
  return Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
}

/** A value of the schema that a service is likely to accept: required fields only. */
function plausible(s: Schema, name: string, known: Known, depth = 0): unknown {
  if (s.enum && s.enum.length > 0) return s.enum[0];
  if (s.const !== undefined) return s.const;
  const alts = (s.anyOf ?? s.oneOf)?.filter((a) => typeOf(a) !== 'null');
  if (alts?.[0]) return plausible(alts[0], name, known, depth);
  const named = byName(name, known);
  if (named !== undefined) return named;
  const ref = Object.entries(known).find(
    ([k]) => k.toLowerCase() === name.replace(/_id$/, 'id').replace(/_/g, '').toLowerCase(),
  )?.[1]?.[0];
  switch (typeOf(s)) {
    case 'object': {
      if (depth > 4) return {};
      const out: Record<string, unknown> = {};
      for (const k of s.required ?? []) {
        const p = s.properties?.[k];
        if (p) out[k] = plausible(p, k, known, depth + 1);
      }
      return out;
    }
    case 'array': {
      const min = (s as { minItems?: number }).minItems ?? 0;
      return min > 0 && s.items ? [plausible(s.items, name, known, depth + 1)] : [];
    }
    case 'integer':
    case 'number':
      return ref !== undefined && /^\d+$/.test(ref) ? Number(ref) : (s.minimum ?? 1);
    case 'boolean':
      return false;
    case 'string':
      return ref ?? 'x'.repeat(Math.max(1, s.minLength ?? 1));
    default:
      return undefined;
  }
}

interface Walk {
  op: Operation;
  url: string;
  body: unknown;
}

function requestOf(op: Operation, known: Known): Walk {
  let url = `/v4${op.path}`;
  for (const p of op.params.filter((x) => x.in === 'path')) {
    const v =
      HINTS[op.id]?.params?.(known)[p.name] ??
      known[p.name]?.[0] ??
      (typeOf(p.schema ?? {}) === 'integer' ? '1' : 'x');
    url = url.replace(`{${p.name}}`, v.split('/').map(encodeURIComponent).join('/'));
  }
  const query = op.params
    .filter((p) => p.in === 'query' && (p as { required?: boolean }).required)
    .map(
      (p) => `${p.name}=${encodeURIComponent(String(plausible(p.schema ?? {}, p.name, known)))}`,
    );
  if (query.length > 0) url += `?${query.join('&')}`;
  const hint = HINTS[op.id]?.body;
  const body = hint ? hint(known) : op.body ? plausible(op.body, '', known) : undefined;
  return { op, url, body };
}

/** Sends a walk's request: JSON, a multipart file, or an image for operations that take one. */
async function send(app: TestApp, w: Walk, token: string) {
  if (w.op.binary.includes('multipart/form-data')) {
    const boundary = 'walkboundary';
    const payload = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="file"; filename="walk.txt"',
      'Content-Type: text/plain',
      '',
      'walk',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const res = await app.app.inject({
      method: w.op.method,
      url: w.url,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      payload,
    });
    return { status: res.statusCode, text: res.body, body: res.body };
  }
  if (w.op.binary.length > 0) {
    const res = await app.app.inject({
      method: w.op.method,
      url: w.url,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
      payload: PNG,
    });
    return { status: res.statusCode, text: res.body, body: res.body };
  }
  return app.request(w.op.method, w.url, {
    token,
    ...(w.body !== undefined ? { body: w.body } : {}),
  });
}

/** More entities than the fuzzer's fixtures: the ids the remaining path parameters name. */
async function moreFixtures(app: TestApp, known: Known): Promise<void> {
  const ok = async (method: string, url: string, body?: unknown) => {
    const r = await app.request(method, url, body === undefined ? {} : { body });
    if (r.status >= 300) throw new Error(`fixture ${method} ${url}: ${r.status} ${r.text}`);
    return r.body;
  };
  const computeId = known.computeId?.[0];
  const image = await ok('POST', '/v4/images', { disk_id: id(known, 'diskId'), label: 'walk-img' });
  await app.settle();
  await ok('PUT', '/v4/account', { zip: '19106', country: 'US', state: 'PA' });
  await ok('POST', '/v4/account/payment-methods', {
    type: 'credit_card',
    is_default: true,
    data: { card_number: '4111111111111111', expiry_month: 12, expiry_year: 2030, cvv: '123' },
  });
  await ok('POST', '/v4/account/payment-methods', {
    type: 'credit_card',
    is_default: false,
    data: { card_number: '5555555555554444', expiry_month: 11, expiry_year: 2031, cvv: '321' },
  });
  const methods = await ok('GET', '/v4/account/payment-methods');
  const nonDefault = methods.data.find((m: { is_default: boolean }) => !m.is_default);
  await ok('POST', '/v4/account/payments', { usd: '10.00' });
  const payments = await ok('GET', '/v4/account/payments');
  // Before the firewall device: an instance behind a firewall cannot be offered.
  const transfer = await ok('POST', '/v4/account/service-transfers', {
    entities: { computes: [Number(computeId)] },
  });
  const ips = await ok('GET', `/v4/compute/instances/${computeId}/ips`);
  const device = await ok('POST', `/v4/networking/firewalls/${known.firewallId?.[0]}/devices`, {
    type: 'compute',
    id: Number(computeId),
  });
  const range = await ok('POST', '/v4/networking/ipv6/ranges', {
    prefix_length: 64,
    compute_id: Number(computeId),
  });
  const configUrl = `/v4/compute/instances/${computeId}/configs/${known.configId?.[0]}`;
  const iface = await ok('POST', `${configUrl}/interfaces`, { purpose: 'public' });
  const privateAddress = ips.ipv4.private[0]?.address as string;
  const node = await ok(
    'POST',
    `/v4/nodebalancers/${known.nodeBalancerId?.[0]}/configs/${known.configId?.[1]}/nodes`,
    { label: 'walk-node-0', address: `${privateAddress}:80` },
  );
  // An object in the fixture bucket, written through a pre-signed URL.
  const put = await ok(
    'POST',
    `/v4/object-storage/buckets/${known.clusterId?.[0]}/${known.bucket?.[0]}/object-url`,
    { name: 'walk.txt', method: 'PUT', content_type: 'text/plain' },
  );
  const u = new URL(put.url);
  await app.app.inject({
    method: 'PUT',
    url: `${u.pathname}${u.search}`,
    headers: { host: u.host, 'content-type': 'text/plain' },
    payload: 'walk',
  });
  await enableBackups(app, known);
  await app.post(`/v4/compute/instances/${computeId}/backups`, { label: 'walk-snap' });
  await app.settle();
  const backups = await ok('GET', `/v4/compute/instances/${computeId}/backups`);
  const interfaces = await ok('GET', `${configUrl}/interfaces`);
  // After the transfer: the instance's public address reserved (what /networking/reserved/ips
  // names), and a placement group.
  await ok('PUT', `/v4/networking/ips/${known.address?.[0]}`, { reserved: true });
  const group = await ok('POST', '/v4/placement/groups', {
    label: 'walk-pg',
    region: 'us-east',
    placement_group_type: 'anti_affinity:local',
    placement_group_policy: 'flexible',
  });
  // The owner's support ticket: a restricted user sees only the tickets it opened.
  const ticket = await ok('POST', '/v4/support/tickets', {
    summary: 'walk ticket',
    description: 'walk',
  });
  const longview = await ok('POST', '/v4/longview/clients', { label: 'walk-lv' });
  const ruleset = await ok('POST', '/v4/networking/firewalls/rulesets', {
    label: 'walk-rs',
    type: 'inbound',
    rules: [{ protocol: 'TCP', ports: '80', addresses: { ipv4: ['0.0.0.0/0'] }, action: 'ACCEPT' }],
  });
  // An instance of the compute generation with its own public and VLAN interfaces.
  const modern = await ok('POST', '/v4/compute/instances', {
    region: 'us-east',
    type: 'g6-nanode-1',
    label: 'walk-modern',
    booted: false,
    interface_generation: 'compute',
    interfaces: [
      { public: {}, firewall_id: Number(known.firewallId?.[0]) },
      { vlan: { vlan_label: 'walk-vlan' } },
    ],
  });
  await app.settle();
  const modernIfaces = await ok('GET', `/v4/compute/instances/${modern.id}/interfaces`);
  // A NodeBalancer with a VPC configuration, in a VPC of its own (the fixture VPC stays
  // deletable: a subnet with a NodeBalancer is not).
  const nbVpc = await ok('POST', '/v4/vpcs', {
    label: 'walk-nb-vpc',
    region: 'us-iad',
    subnets: [{ label: 'nb', ipv4: '10.9.0.0/24' }],
  });
  const vpcNb = await ok('POST', '/v4/nodebalancers', {
    region: 'us-iad',
    label: 'walk-vpc-nb',
    vpcs: [{ subnet_id: nbVpc.subnets[0].id }],
  });
  const vpcConfigs = await ok('GET', `/v4/nodebalancers/${vpcNb.id}/vpcs`);
  // Share groups: one sharing the walk's image, one empty.
  const sharegroup = await ok('POST', '/v4/images/sharegroups', {
    label: 'walk-sg',
    images: [{ id: image.id }],
  });
  const emptyGroup = await ok('POST', '/v4/images/sharegroups', { label: 'walk-sg2' });
  const shares = await ok('GET', `/v4/images/sharegroups/${sharegroup.id}/images`);
  Object.assign(known, {
    rulesetId: [String(ruleset.id)],
    sharegroupId: [String(sharegroup.id), String(emptyGroup.id)],
    sharedImageId: [shares.data[0].id],
    modernComputeId: [String(modern.id)],
    vpcNodeBalancerId: [String(vpcNb.id)],
    vpcConfigId: [String(vpcConfigs.data[0].id)],
    modernInterfaceId: modernIfaces.interfaces.map((i: { id: number }) => String(i.id)),
    ticketId: [String(ticket.id)],
    longviewClientId: [String(longview.id)],
    backupId: [String(backups.snapshot.current?.id ?? backups.automatic[0]?.id)],
    interfaceIds: interfaces.map((i: { id: number }) => String(i.id)),
    token: [transfer.token],
    id: ['us-east'],
    imageId: [image.id, ...(known.imageId ?? [])],
    paymentMethodId: [String(nonDefault.id)],
    paymentId: [String(payments.data[0].id)],
    deviceId: [String(device.id)],
    range: [String(range.range).replace(/\/\d+$/, '')],
    interfaceId: [String(iface.id)],
    nodeId: [String(node.id)],
    privateAddress: [privateAddress],
    groupId: [String(group.id)],
  });
}

const isSelf = (op: Operation) => op.path === '/profile' || op.path.startsWith('/profile/');
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

describe('restricted user without grants: a walk over every operation', () => {
  let t: TestApp;
  let twin: TestApp;
  let known: Known;
  let twinKnown: Known;
  let restricted: string;
  let outsider: string;
  let walks: Walk[];
  /** Operations without security: anyone may call them, with or without a token. */
  let publicOps: Set<string>;
  beforeAll(async () => {
    t = await buildTestApp();
    // Inside the test certificate's validity (createObjectStorageSSL).
    t.clock.set(Date.parse('2027-01-01T00:00:00Z'));
    const f = await seedFixtures(t);
    known = f.known;
    restricted = f.restricted;
    await moreFixtures(t, known);
    outsider = (
      await bootstrapAccount(t.ctx.db, t.clock, { email: 'out@example.org', username: 'outsider' })
    ).token;
    twin = await buildTestApp();
    twin.clock.set(Date.parse('2027-01-01T00:00:00Z'));
    twinKnown = (await seedFixtures(twin)).known;
    await moreFixtures(twin, twinKnown);
    const doc = await t.get('/v4/openapi.json', { token: null });
    walks = operations(doc.body).map((op) => requestOf(op, known));
    publicOps = new Set(
      Object.values<Record<string, { operationId: string; security?: unknown }>>(doc.body.paths)
        .flatMap((ops) => Object.values(ops))
        .filter((o) => o.security === undefined)
        .map((o) => o.operationId),
    );
  }, 300_000);
  afterAll(async () => {
    await t?.close();
    await twin?.close();
  });

  it('every operation: nothing outside the grants model succeeds; refusals change nothing and are proven', async () => {
    const digest = new StateDigest(t);
    await digest.init();
    let base = await digest.take();
    const failures: string[] = [];
    /** Refusals with 400 or 404: the owner must be able to make the same request. */
    const toProve: Walk[] = [];
    for (const w of walks) {
      const { op } = w;
      const r = await send(t, w, restricted);
      const what = `${op.id} ${op.method} ${w.url} → ${r.status} ${r.text.slice(0, 200)}`;
      if (r.status >= 500) failures.push(`5xx: ${what}`);
      if (isSelf(op)) {
        await t.settle();
        base = await digest.take();
        continue;
      }
      if (publicOps.has(op.id)) {
        // The same answer as without a token.
        const anon = await t.request(op.method, w.url, { token: null });
        if (anon.status !== r.status || !sameJson(anon.body, r.body))
          failures.push(`public, but answers otherwise than to no token: ${what}`);
        continue;
      }
      if (r.status < 300) {
        if (op.method === 'GET') {
          const o = await t.request('GET', w.url, { token: outsider });
          if (o.status >= 300 || !sameJson(r.body, o.body))
            failures.push(`shows more than an outsider sees: ${what} (outsider ${o.status})`);
        } else if (!(op.id in ALLOWED_WRITES)) failures.push(`write succeeded: ${what}`);
        await t.settle();
        base = await digest.take();
        continue;
      }
      if (![400, 401, 403, 404].includes(r.status)) failures.push(`unexpected status: ${what}`);
      const after = await digest.take();
      const diff = changed(base, after);
      if (diff.length > 0) failures.push(`refused but changed ${diff.join(', ')}: ${what}`);
      base = after;
      if ((r.status === 400 || r.status === 404) && !(op.id in UNPROVEN)) toProve.push(w);
    }
    expect(failures).toEqual([]);

    // GETs: the owner of the same account, on the same app.
    const unproven: string[] = [];
    for (const w of toProve.filter((x) => x.op.method === 'GET')) {
      const r = await t.request('GET', w.url);
      if (r.status >= 300) unproven.push(`${w.op.id}: owner ${r.status} ${r.text.slice(0, 160)}`);
    }
    // Writes: the owner of the twin, destructive ones last.
    // PUT, POST, then DELETE deepest path first (children before their parents).
    const rank = (w: Walk) =>
      LAST.includes(w.op.id)
        ? 100 + LAST.indexOf(w.op.id)
        : w.op.method === 'DELETE'
          ? 50 - w.op.path.split('/').length
          : w.op.method === 'PUT'
            ? 0
            : 1;
    const writes = toProve.filter((x) => x.op.method !== 'GET').sort((a, b) => rank(a) - rank(b));
    for (const w of writes) {
      await HINTS[w.op.id]?.prepare?.(twin, twinKnown);
      const r = await send(twin, requestOf(w.op, twinKnown), twin.admin.token);
      if (r.status >= 300) unproven.push(`${w.op.id}: owner ${r.status} ${r.text.slice(0, 160)}`);
      await twin.settle();
    }
    expect(
      unproven,
      'refusals not shown to come from the grants: give the operation an entity to name ' +
        '(test/fuzz/fixtures.ts or moreFixtures), a body in HINTS, or a reason in UNPROVEN',
    ).toEqual([]);
  }, 600_000);
});
