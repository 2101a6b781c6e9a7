/**
 * The crash test's writer: creates and updates across areas through a real server, and a ledger
 * of every write the server answered 2xx (and of the writes under way when it died).
 */

export interface Entry {
  kind: string;
  /** GET path of the entity. */
  url: string;
  id: number | string;
  /** Event action of the create (undefined: the area writes none). */
  createEvent: string | undefined;
  updateEvent: string | undefined;
  /** The label the last answered write gave. */
  label: string;
  /** Labels of updates sent but never answered (the server died): either may be stored. */
  pending: string[];
  acknowledgedUpdates: number;
  /** Events about it name it by entity id, by label (tags), or only in their message (keys). */
  eventMatch: { by: 'id' } | { by: 'label' } | { by: 'message'; text: string };
}

interface Kind {
  kind: string;
  create: (label: string) => { url: string; body: unknown };
  get: (id: number | string) => string;
  update?: (id: number | string, label: string) => { url: string; body: unknown };
  createEvent?: string;
  updateEvent?: string;
  idOf?: (body: any) => number | string;
  eventMatch?: (body: any) => Entry['eventMatch'];
  /** How many an account may hold: once the ledger has that many, the writer makes others. */
  limit?: number;
}

const RULES = { inbound_policy: 'ACCEPT', outbound_policy: 'DROP', inbound: [], outbound: [] };

export const KINDS: Kind[] = [
  {
    kind: 'instance',
    create: (label) => ({
      url: '/v4/compute/instances',
      body: {
        region: 'us-east',
        type: 'g6-nanode-1',
        image: 'compute/debian12',
        root_pass: 'c0rrect-Horse-battery-staple!',
        label,
      },
    }),
    get: (id) => `/v4/compute/instances/${id}`,
    update: (id, label) => ({ url: `/v4/compute/instances/${id}`, body: { label } }),
    createEvent: 'compute_create',
    updateEvent: 'compute_update',
  },
  {
    kind: 'volume',
    create: (label) => ({ url: '/v4/volumes', body: { label, region: 'us-east', size: 20 } }),
    get: (id) => `/v4/volumes/${id}`,
    update: (id, label) => ({ url: `/v4/volumes/${id}`, body: { label } }),
    createEvent: 'volume_create',
    updateEvent: 'volume_update',
  },
  {
    kind: 'firewall',
    create: (label) => ({ url: '/v4/networking/firewalls', body: { label, rules: RULES } }),
    get: (id) => `/v4/networking/firewalls/${id}`,
    update: (id, label) => ({ url: `/v4/networking/firewalls/${id}`, body: { label } }),
    createEvent: 'firewall_create',
    updateEvent: 'firewall_update',
  },
  {
    kind: 'vpc',
    create: (label) => ({ url: '/v4/vpcs', body: { label, region: 'us-iad' } }),
    get: (id) => `/v4/vpcs/${id}`,
    update: (id, label) => ({ url: `/v4/vpcs/${id}`, body: { label } }),
    createEvent: 'vpc_create',
    updateEvent: 'vpc_update',
  },
  {
    kind: 'key',
    create: (label) => ({ url: '/v4/object-storage/keys', body: { label } }),
    get: (id) => `/v4/object-storage/keys/${id}`,
    update: (id, label) => ({ url: `/v4/object-storage/keys/${id}`, body: { label } }),
    createEvent: 'obj_access_key_create',
    eventMatch: (b) => ({ by: 'message', text: b.access_key }),
    updateEvent: 'obj_access_key_update',
    // An account holds at most 100 access keys, which a fast server reaches within a run; the
    // margin covers creates under way in the other writers and creates stored but never answered.
    limit: 75,
  },
  {
    kind: 'tag',
    create: (label) => ({ url: '/v4/tags', body: { label } }),
    get: (id) => `/v4/tags/${id}`,
    createEvent: 'tag_create',
    eventMatch: () => ({ by: 'label' }),
    idOf: (b) => b.label,
  },
  {
    kind: 'bucket',
    create: (label) => ({
      url: '/v4/object-storage/buckets',
      body: { label, cluster: 'us-east-1' },
    }),
    get: (id) => `/v4/object-storage/buckets/us-east-1/${id}`,
    idOf: (b) => b.label,
  },
];

export interface Api {
  call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** A deterministic generator (mulberry32) for kill moments and choices. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One writer: until the server dies (a request fails to get an answer), it creates an entity of
 * a kind chosen at random or renames one of its own, recording each answered write.
 */
export async function write(
  api: Api,
  ledger: Entry[],
  owner: string,
  stamp: string,
  rand: () => number,
  stop: () => boolean,
): Promise<void> {
  let n = 0;
  while (!stop()) {
    const mine = ledger.filter(
      (e) => e.label.startsWith(owner) && KINDS.find((k) => k.kind === e.kind)?.update,
    );
    const renaming = mine.length > 0 && rand() < 0.35;
    if (renaming) {
      const e = mine[Math.floor(rand() * mine.length)] as Entry;
      const kind = KINDS.find((k) => k.kind === e.kind) as Kind;
      const label = `${owner}${stamp}r${n++}`;
      const req = kind.update?.(e.id, label) as { url: string; body: unknown };
      e.pending.push(label);
      let r: { status: number; body: any };
      try {
        r = await api.call('PUT', req.url, req.body);
      } catch {
        return; // no answer: the update stays pending
      }
      e.pending = e.pending.filter((l) => l !== label);
      if (r.status === 200) {
        e.label = label;
        e.acknowledgedUpdates++;
      } else if (!/busy/.test(JSON.stringify(r.body))) {
        throw new Error(`PUT ${req.url}: ${r.status} ${JSON.stringify(r.body)}`);
      }
      continue;
    }
    const open = KINDS.filter(
      (k) => k.limit === undefined || ledger.filter((e) => e.kind === k.kind).length < k.limit,
    );
    const kind = open[Math.floor(rand() * open.length)] as Kind;
    const label = `${owner}${stamp}n${n++}`;
    const req = kind.create(label);
    let r: { status: number; body: any };
    try {
      r = await api.call('POST', req.url, req.body);
    } catch {
      return;
    }
    if (r.status !== 200) throw new Error(`POST ${req.url}: ${r.status} ${JSON.stringify(r.body)}`);
    ledger.push({
      kind: kind.kind,
      url: kind.get(kind.idOf ? kind.idOf(r.body) : r.body.id),
      id: kind.idOf ? kind.idOf(r.body) : r.body.id,
      createEvent: kind.createEvent,
      updateEvent: kind.updateEvent,
      label,
      pending: [],
      acknowledgedUpdates: 0,
      eventMatch: kind.eventMatch ? kind.eventMatch(r.body) : { by: 'id' },
    });
  }
}
