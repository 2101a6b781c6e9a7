import { createHash } from 'node:crypto';
import pg from 'pg';
import { listTables, type TableInfo } from '../../src/modules/controls/state.tables.js';
import { readRows } from '../../src/modules/controls/state.rows.js';
import { createTestUser } from '../helpers/auth.js';
import type { TestApp } from '../helpers/build-test-app.js';

const STRONG = 'c0rrect-Horse-battery-staple!';

/**
 * Real values for path parameters, by parameter name: the entities the fuzzer's requests may
 * reach (so that bodies get past the 404 to the validation and the services behind it).
 */
export type Known = Record<string, string[]>;

async function ok(t: TestApp, method: string, url: string, body?: unknown): Promise<any> {
  const r = await t.request(method, url, body === undefined ? {} : { body });
  if (r.status >= 300) throw new Error(`fixture ${method} ${url}: ${r.status} ${r.text}`);
  return r.body;
}

/** One of each kind of entity (settled), and a restricted user without grants. */
export async function seedFixtures(t: TestApp): Promise<{ known: Known; restricted: string }> {
  const inst = await ok(t, 'POST', '/v4/compute/instances', {
    region: 'us-east',
    type: 'g6-nanode-1',
    image: 'compute/debian12',
    root_pass: STRONG,
    label: 'fuzz-inst',
    private_ip: true,
  });
  await t.settle();
  const disks = await ok(t, 'GET', `/v4/compute/instances/${inst.id}/disks`);
  const configs = await ok(t, 'GET', `/v4/compute/instances/${inst.id}/configs`);
  const vol = await ok(t, 'POST', '/v4/volumes', { label: 'fuzz-vol', region: 'us-east' });
  const fw = await ok(t, 'POST', '/v4/networking/firewalls', {
    label: 'fuzz-fw',
    rules: { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' },
  });
  const vpc = await ok(t, 'POST', '/v4/vpcs', {
    label: 'fuzz-vpc',
    region: 'us-iad',
    subnets: [{ label: 'sn', ipv4: '10.0.0.0/24' }],
  });
  await ok(t, 'POST', '/v4/tags', { label: 'fuzz-tag' });
  const nb = await ok(t, 'POST', '/v4/nodebalancers', { region: 'us-east', label: 'fuzz-nb' });
  const nbc = await ok(t, 'POST', `/v4/nodebalancers/${nb.id}/configs`, { port: 80 });
  const key = await ok(t, 'POST', '/v4/object-storage/keys', { label: 'fuzz-key' });
  const clusters = await ok(t, 'GET', '/v4/object-storage/clusters');
  const cluster = clusters.data[0]?.id ?? 'us-east-1';
  await ok(t, 'POST', '/v4/object-storage/buckets', { label: 'fuzz-bucket', cluster });
  const client = await ok(t, 'POST', '/v4/account/oauth-clients', {
    label: 'fuzz-client',
    redirect_uri: 'https://example.com/cb',
  });
  const pat = await ok(t, 'POST', '/v4/profile/tokens', { label: 'fuzz-pat', scopes: '*' });
  const ss = await ok(t, 'POST', '/v4/compute/stackscripts', {
    label: 'fuzz-ss',
    images: ['compute/debian12'],
    script: '#!/bin/bash\necho hi',
  });
  const dom = await ok(t, 'POST', '/v4/domains', {
    domain: 'fuzz.example',
    type: 'master',
    soa_email: 'admin@fuzz.example',
  });
  const rec = await ok(t, 'POST', `/v4/domains/${dom.id}/records`, {
    type: 'A',
    name: 'www',
    target: '192.0.2.1',
  });
  const other = await createTestUser(t, { username: 'fuzzuser', restricted: true });
  await t.settle();
  const ips = await ok(t, 'GET', `/v4/compute/instances/${inst.id}/ips`);
  const address = ips.ipv4.public[0]?.address as string;
  const events = await ok(t, 'GET', '/v4/account/events');
  const n = (x: { id: number }) => [String(x.id)];
  const known: Known = {
    computeId: n(inst),
    diskId: disks.data.map((d: { id: number }) => String(d.id)),
    configId: [String(configs.data[0]?.id), String(nbc.id)],
    volumeId: n(vol),
    firewallId: n(fw),
    vpcId: n(vpc),
    vpcSubnetId: n(vpc.subnets[0]),
    nodeBalancerId: n(nb),
    keyId: n(key),
    clusterId: [cluster],
    bucket: ['fuzz-bucket'],
    clientId: [client.id],
    tokenId: n(pat),
    stackscriptId: n(ss),
    domainId: n(dom),
    recordId: n(rec),
    username: [other.username],
    tagLabel: ['fuzz-tag'],
    address: [address],
    eventId: [String(events.data[0]?.id ?? 1)],
    regionId: ['us-east'],
    typeId: ['g6-nanode-1'],
    imageId: ['compute/debian12'],
    kernelId: ['compute/grub2'],
    year: ['2026'],
    month: ['3'],
  };
  return { known, restricted: other.token };
}

/** A digest of every row of every table: equal digests, no state change. */
export class StateDigest {
  private tables: TableInfo[] = [];
  /** PostgreSQL: a connection of its own, where the digest's statement is prepared once. */
  private client: pg.Client | undefined;
  private statement = '';

  constructor(private readonly t: TestApp) {}

  async init(): Promise<void> {
    this.tables = await listTables(this.t.ctx.db);
    if (this.t.ctx.db.dialect !== 'postgres') return;
    this.statement = this.tables
      .map(
        (t) =>
          `select ${quoteLiteral(t.name)} as name, md5(coalesce(string_agg(x::text, chr(10) order by x::text), '')) as h from ${quoteIdent(t.name)} x`,
      )
      .join(' union all ');
    this.client = new pg.Client({ connectionString: this.t.url });
    // The test app's close drops the database under this connection.
    this.client.on('error', () => {});
    await this.client.connect();
  }

  async close(): Promise<void> {
    await this.client?.end();
    this.client = undefined;
  }

  /** Table name → hash of its rows (so a difference names the tables that changed). */
  async take(): Promise<Record<string, string>> {
    if (this.client) return this.takePostgres(this.client);
    const out: Record<string, string> = {};
    for (const table of this.tables) {
      const rows = (await readRows(this.t.ctx.db, table)).map((r) => JSON.stringify(r)).sort();
      out[table.name] = createHash('sha1').update(rows.join('\n')).digest('hex');
    }
    return out;
  }

  /**
   * PostgreSQL: every table hashed by the server, in one round trip, as a named prepared
   * statement: planning the union of every table took about as long as running it, after each of
   * the fuzzer's requests. It reads what the app has committed, as the app's own connections do.
   */
  private async takePostgres(client: pg.Client): Promise<Record<string, string>> {
    const { rows } = await client.query<{ name: string; h: string }>({
      name: 'stratus-state-digest',
      text: this.statement,
    });
    return Object.fromEntries(rows.map((r) => [r.name, r.h]));
  }
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The tables whose hashes differ. */
export function changed(a: Record<string, string>, b: Record<string, string>): string[] {
  return Object.keys({ ...a, ...b }).filter((k) => a[k] !== b[k]);
}
