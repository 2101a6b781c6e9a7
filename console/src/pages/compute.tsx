import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { Chart } from '../components/chart';
import { ActionButton, Disclosure, Form, type FieldSpec } from '../components/form';
import { useCan } from '../components/layout';
import { ListView } from '../components/list';
import { Details, ErrorBox, Loading, Section, Status, Table } from '../components/ui';
import { del, get, type Page, post, put } from '../lib/api';
import { useImages, useOptions, useRegions, useTypes } from '../lib/catalogue';

export interface Instance {
  id: number;
  label: string;
  status: string;
  region: string;
  type: string;
  image: string | null;
  ipv4: string[];
  ipv6: string | null;
  tags: string[];
  created: string;
  specs: Record<string, number>;
  backups: { enabled: boolean };
}

const statusCol = {
  key: 'status',
  label: 'Status',
  render: (r: { status: string }) => <Status value={r.status} />,
};

/** The instances list, with the API's filters. */
export function Instances() {
  const can = useCan();
  return (
    <>
      <div className="page-head">
        <h1>Instances</h1>
        {can.add('compute') ? (
          <Link className="btn" to="/console/instances/create">
            Create instance
          </Link>
        ) : null}
      </div>
      <ListView<Instance>
        path="/compute/instances"
        title="Your instances"
        rowKey={(r) => r.id}
        filters={[
          { key: 'label', label: 'Label' },
          { key: 'region', label: 'Region' },
          { key: 'type', label: 'Type' },
          { key: 'image', label: 'Image' },
          { key: 'tags', label: 'Tag' },
        ]}
        orderBy={['label', 'created', 'region', 'type']}
        columns={[
          {
            key: 'label',
            label: 'Label',
            render: (r) => <Link to={`/console/instances/${r.id}`}>{r.label}</Link>,
          },
          statusCol,
          { key: 'region', label: 'Region' },
          { key: 'type', label: 'Plan' },
          { key: 'ipv4', label: 'IPv4' },
          { key: 'image', label: 'Image' },
        ]}
      />
    </>
  );
}

/** Create: region, plan, image or StackScript, root password and keys, VPC, firewall. */
export function CreateInstance() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const regions = useRegions();
  const types = useTypes();
  const images = useImages();
  const stackscripts = useOptions<{ id: number; label: string; username: string }>(
    '/compute/stackscripts',
    (s) => ({ value: String(s.id), label: `${s.label} (${s.username})` }),
    { filter: { mine: true } },
  );
  const firewalls = useOptions<{ id: number; label: string }>('/networking/firewalls', (f) => ({
    value: String(f.id),
    label: f.label,
  }));
  const vpcs = useQuery({
    queryKey: ['options', 'vpc-subnets'],
    queryFn: async () =>
      (
        await get<
          Page<{
            id: number;
            label: string;
            region: string;
            subnets: { id: number; label: string; ipv4: string }[];
          }>
        >('/vpcs', { query: { page_size: 500 } })
      ).data,
  });
  const keys = useOptions<{ id: number; label: string; ssh_key: string }>(
    '/profile/sshkeys',
    (k) => ({
      value: k.ssh_key,
      label: k.label,
    }),
  );
  const subnets = (vpcs.data ?? []).flatMap((v) =>
    v.subnets.map((s) => ({
      value: String(s.id),
      label: `${v.label} / ${s.label} (${s.ipv4}, ${v.region})`,
    })),
  );
  const fields: FieldSpec[] = [
    { name: 'label', label: 'Label', help: '3 to 64 characters; a default is chosen when empty.' },
    { name: 'region', label: 'Region', type: 'select', options: regions, required: true },
    { name: 'type', label: 'Plan', type: 'select', options: types, required: true },
    { name: 'image', label: 'Image', type: 'select', options: images },
    {
      name: 'stackscript_id',
      label: 'StackScript (instead of a plain image)',
      type: 'select',
      options: stackscripts,
    },
    {
      name: 'stackscript_data',
      label: 'StackScript answers (JSON)',
      type: 'json',
      placeholder: '{"name": "value"}',
    },
    {
      name: 'root_pass',
      label: 'Root password',
      type: 'password',
      help: 'Required with an image; it must be strong.',
    },
    { name: 'authorized_keys', label: 'SSH keys (one a line)', type: 'list' },
    {
      name: 'subnet',
      label: 'VPC subnet',
      type: 'select',
      options: subnets,
      help: 'Adds a VPC interface beside the public one.',
    },
    { name: 'firewall_id', label: 'Firewall', type: 'select', options: firewalls },
    { name: 'tags', label: 'Tags (comma separated)', type: 'list' },
    { name: 'backups_enabled', label: 'Back up automatically', type: 'checkbox' },
    { name: 'private_ip', label: 'Add a private IPv4 address', type: 'checkbox' },
  ];
  return (
    <>
      <h1>Create an instance</h1>
      <div className="card">
        {keys.length > 0 ? (
          <p className="help">
            Your SSH keys: {keys.map((k) => k.label).join(', ')} (paste the ones to add).
          </p>
        ) : null}
        <Form
          fields={fields}
          submitLabel="Create instance"
          onSubmit={async (v) => {
            const { subnet, stackscript_id, firewall_id, ...rest } = v;
            const body: Record<string, unknown> = { ...rest };
            if (stackscript_id !== undefined) body.stackscript_id = Number(stackscript_id);
            if (firewall_id !== undefined) body.firewall_id = Number(firewall_id);
            if (subnet !== undefined)
              body.interfaces = [
                { purpose: 'public' },
                { purpose: 'vpc', subnet_id: Number(subnet), ipv4: { nat_1_1: 'any' } },
              ];
            const created = await post<Instance>('/compute/instances', body);
            await client.invalidateQueries();
            navigate(`/console/instances/${created.id}`);
          }}
        />
      </div>
    </>
  );
}

const TABS = [
  'Summary',
  'Analytics',
  'Network',
  'Storage',
  'Configurations',
  'Backups',
  'Settings',
] as const;

/** One instance: power, its parts, the long operations, live statistics. */
export function InstanceDetail() {
  const { id } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const [tab, setTab] = useState<(typeof TABS)[number]>('Summary');
  const path = `/compute/instances/${id}`;
  const q = useQuery({ queryKey: [path], queryFn: () => get<Instance>(path) });
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const i = q.data;
  const writable = can.write('compute', i.id);
  const refresh = () => client.invalidateQueries();
  const act = (what: string, body?: unknown) => async () => {
    await post(`${path}/${what}`, body);
    await refresh();
  };
  return (
    <>
      <div className="page-head">
        <h1>{i.label}</h1>
        <span aria-live="polite" data-testid="instance-status">
          <Status value={i.status} />
        </span>
        {writable ? (
          <div className="head-actions">
            {i.status === 'offline' || i.status === 'stopped' ? (
              <ActionButton label="Power on" run={act('boot')} secondary />
            ) : null}
            {i.status === 'running' ? (
              <>
                <ActionButton label="Reboot" run={act('reboot')} secondary />
                <ActionButton label="Power off" run={act('shutdown')} secondary />
              </>
            ) : null}
            <ActionButton
              label="Delete"
              danger
              confirm={`Delete ${i.label}? Its disks and backups go too.`}
              run={async () => {
                await del(path);
                await refresh();
                navigate('/console/instances');
              }}
            />
          </div>
        ) : null}
      </div>
      <div className="tabs" role="tablist" aria-label="Instance">
        {TABS.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            aria-selected={tab === t}
            onClick={() => setTab(t)}
          >
            {t}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={tab}>
        {tab === 'Summary' ? <Summary i={i} path={path} /> : null}
        {tab === 'Analytics' ? <Analytics path={path} /> : null}
        {tab === 'Network' ? <Network path={path} writable={writable} /> : null}
        {tab === 'Storage' ? <Storage i={i} path={path} writable={writable} /> : null}
        {tab === 'Configurations' ? <Configs path={path} writable={writable} /> : null}
        {tab === 'Backups' ? <Backups i={i} path={path} writable={writable} /> : null}
        {tab === 'Settings' ? <Operations i={i} path={path} writable={writable} /> : null}
      </div>
    </>
  );
}

function Summary({ i, path }: { i: Instance; path: string }) {
  const volumes = useQuery({
    queryKey: [`${path}/volumes`],
    queryFn: () =>
      get<Page<{ id: number; label: string; size: number; status: string }>>(`${path}/volumes`),
  });
  const firewalls = useQuery({
    queryKey: [`${path}/firewalls`],
    queryFn: () => get<Page<{ id: number; label: string; status: string }>>(`${path}/firewalls`),
  });
  return (
    <>
      <Section title="Summary">
        <Details value={i as unknown as Record<string, unknown>} omit={['label']} />
      </Section>
      <Section title="Attached volumes">
        <Table
          caption="Attached volumes"
          rows={volumes.data?.data ?? []}
          columns={[
            {
              key: 'label',
              label: 'Label',
              render: (r) => <Link to={`/console/volumes/${r.id}`}>{r.label}</Link>,
            },
            { key: 'size', label: 'Size (GB)' },
            { key: 'status', label: 'Status', render: (r) => <Status value={r.status} /> },
          ]}
        />
      </Section>
      <Section title="Firewalls">
        <Table
          caption="Firewalls"
          rows={firewalls.data?.data ?? []}
          columns={[
            {
              key: 'label',
              label: 'Label',
              render: (r) => <Link to={`/console/firewalls/${r.id}`}>{r.label}</Link>,
            },
            { key: 'status', label: 'Status', render: (r) => <Status value={r.status} /> },
          ]}
        />
      </Section>
    </>
  );
}

interface Stats {
  data: {
    cpu: number[][];
    io: { io: number[][]; swap: number[][] };
    netv4: { in: number[][]; out: number[][]; private_in: number[][]; private_out: number[][] };
  };
}

function Analytics({ path }: { path: string }) {
  const q = useQuery({
    queryKey: [`${path}/stats`],
    queryFn: () => get<Stats>(`${path}/stats`),
    refetchInterval: 60_000,
  });
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const d = q.data.data;
  return (
    <Section title="Statistics (last 24 hours)">
      <Chart title="CPU" unit="%" series={[{ label: 'CPU', points: d.cpu, color: '#0a58a8' }]} />
      <Chart
        title="Network (IPv4)"
        unit=" b/s"
        series={[
          { label: 'in', points: d.netv4.in, color: '#17692e' },
          { label: 'out', points: d.netv4.out, color: '#a8231b' },
        ]}
      />
      <Chart
        title="Disk I/O"
        unit=" blocks/s"
        series={[
          { label: 'I/O', points: d.io.io, color: '#7a5200' },
          { label: 'swap', points: d.io.swap, color: '#4f5b66' },
        ]}
      />
    </Section>
  );
}

interface Ip {
  address: string;
  type: string;
  public: boolean;
  rdns: string | null;
  prefix: number;
}

function Network({ path, writable }: { path: string; writable: boolean }) {
  const client = useQueryClient();
  const q = useQuery({
    queryKey: [`${path}/ips`],
    queryFn: () =>
      get<{ ipv4: Record<string, Ip[] | Ip | null>; ipv6: Record<string, Ip | Ip[] | null> }>(
        `${path}/ips`,
      ),
  });
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const rows: (Ip & { kind: string })[] = [];
  for (const [fam, groups] of Object.entries(q.data))
    for (const [kind, v] of Object.entries(groups))
      for (const ip of [v].flat())
        if (ip && typeof ip === 'object' && 'address' in ip)
          rows.push({ ...ip, kind: `${fam} ${kind}` });
  return (
    <>
      <Section title="IP addresses">
        <Table
          caption="IP addresses"
          rows={rows}
          rowKey={(r) => r.address}
          columns={[
            { key: 'address', label: 'Address' },
            { key: 'kind', label: 'Kind' },
            { key: 'rdns', label: 'Reverse DNS' },
            ...(writable
              ? [
                  {
                    key: 'x',
                    label: 'Actions',
                    render: (r: Ip & { kind: string }) =>
                      r.kind.startsWith('ipv4 public') &&
                      rows.filter((x) => x.kind.startsWith('ipv4 public')).length > 1 ? (
                        <ActionButton
                          label="Delete"
                          secondary
                          confirm={`Delete ${r.address}?`}
                          run={async () => {
                            await del(`${path}/ips/${r.address}`);
                            await client.invalidateQueries();
                          }}
                        />
                      ) : null,
                  },
                ]
              : []),
          ]}
        />
      </Section>
      {writable ? (
        <>
          <Disclosure label="Edit reverse DNS">
            <Form
              fields={[
                {
                  name: 'address',
                  label: 'Address',
                  type: 'select',
                  required: true,
                  options: rows
                    .filter((r) => r.public)
                    .map((r) => ({ value: r.address, label: r.address })),
                },
                {
                  name: 'rdns',
                  label: 'Reverse DNS name',
                  help: 'Empty resets it to the default.',
                },
              ]}
              submitLabel="Save reverse DNS"
              onSubmit={async (v) => {
                await put(`${path}/ips/${v.address}`, { rdns: v.rdns ?? null });
                await client.invalidateQueries();
              }}
            />
          </Disclosure>
          <Disclosure label="Add an IPv4 address">
            <Form
              fields={[
                {
                  name: 'public',
                  label: 'Public (otherwise private)',
                  type: 'checkbox',
                  initial: true,
                },
              ]}
              submitLabel="Add address"
              onSubmit={async (v) => {
                await post(`${path}/ips`, { type: 'ipv4', public: v.public });
                await client.invalidateQueries();
              }}
            />
          </Disclosure>
        </>
      ) : null}
    </>
  );
}

function Storage({ i, path, writable }: { i: Instance; path: string; writable: boolean }) {
  const client = useQueryClient();
  const images = useImages();
  return (
    <>
      <ListView<{ id: number; label: string; size: number; status: string; filesystem: string }>
        path={`${path}/disks`}
        title="Disks"
        filters={[{ key: 'label', label: 'Label' }]}
        columns={[
          { key: 'label', label: 'Label' },
          { key: 'size', label: 'Size (MB)' },
          { key: 'filesystem', label: 'Filesystem' },
          { key: 'status', label: 'Status', render: (r) => <Status value={r.status} /> },
          ...(writable
            ? [
                {
                  key: 'x',
                  label: 'Actions',
                  render: (r: { id: number; label: string }) => (
                    <ActionButton
                      label="Delete"
                      secondary
                      confirm={`Delete disk ${r.label}?`}
                      run={async () => {
                        await del(`${path}/disks/${r.id}`);
                        await client.invalidateQueries();
                      }}
                    />
                  ),
                },
              ]
            : []),
        ]}
      />
      {writable ? (
        <>
          <Disclosure label="Add a disk">
            <Form
              fields={[
                { name: 'label', label: 'Label', required: true },
                { name: 'size', label: 'Size (MB)', type: 'number', required: true },
                {
                  name: 'filesystem',
                  label: 'Filesystem',
                  type: 'select',
                  options: ['ext4', 'ext3', 'raw', 'swap', 'initrd'].map((v) => ({
                    value: v,
                    label: v,
                  })),
                },
                { name: 'image', label: 'Image', type: 'select', options: images },
                { name: 'root_pass', label: 'Root password (with an image)', type: 'password' },
              ]}
              submitLabel="Add disk"
              onSubmit={async (v) => {
                await post(`${path}/disks`, v);
                await client.invalidateQueries();
              }}
            />
          </Disclosure>
          <Disclosure label="Resize a disk">
            <Form
              fields={[
                { name: 'disk', label: 'Disk id', type: 'number', required: true },
                { name: 'size', label: 'New size (MB)', type: 'number', required: true },
              ]}
              submitLabel="Resize disk"
              onSubmit={async (v) => {
                await post(`${path}/disks/${v.disk}/resize`, { size: v.size });
                await client.invalidateQueries();
              }}
            />
          </Disclosure>
        </>
      ) : null}
      <p className="help">
        Volumes of {i.label}: attach one from its page in <Link to="/console/volumes">Volumes</Link>
        .
      </p>
    </>
  );
}

interface Config {
  id: number;
  label: string;
  kernel: string;
  root_device: string;
  devices: Record<string, unknown>;
  interfaces: {
    id: number;
    purpose: string;
    label: string | null;
    ipam_address: string | null;
    subnet_id: number | null;
    primary: boolean;
  }[];
}

function Configs({ path, writable }: { path: string; writable: boolean }) {
  const client = useQueryClient();
  const q = useQuery({
    queryKey: [`${path}/configs`],
    queryFn: () => get<Page<Config>>(`${path}/configs`),
  });
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  return (
    <>
      {q.data.data.map((c) => (
        <Section key={c.id} title={`Configuration: ${c.label}`}>
          <Details
            value={{ id: c.id, kernel: c.kernel, root_device: c.root_device, devices: c.devices }}
          />
          <h3>Interfaces</h3>
          <Table
            caption={`Interfaces of ${c.label}`}
            rows={c.interfaces}
            rowKey={(r) => r.id}
            columns={[
              { key: 'purpose', label: 'Purpose' },
              { key: 'label', label: 'Label' },
              { key: 'ipam_address', label: 'IPAM address' },
              { key: 'subnet_id', label: 'Subnet' },
              { key: 'primary', label: 'Primary' },
              ...(writable
                ? [
                    {
                      key: 'x',
                      label: 'Actions',
                      render: (r: { id: number }) => (
                        <ActionButton
                          label="Remove"
                          secondary
                          run={async () => {
                            await del(`${path}/configs/${c.id}/interfaces/${r.id}`);
                            await client.invalidateQueries();
                          }}
                        />
                      ),
                    },
                  ]
                : []),
            ]}
          />
          {writable ? (
            <Disclosure label="Add an interface">
              <Form
                fields={[
                  {
                    name: 'purpose',
                    label: 'Purpose',
                    type: 'select',
                    required: true,
                    options: ['public', 'vlan', 'vpc'].map((v) => ({ value: v, label: v })),
                  },
                  { name: 'label', label: 'VLAN label (vlan)' },
                  {
                    name: 'ipam_address',
                    label: 'IPAM address (vlan)',
                    placeholder: '10.0.0.1/24',
                  },
                  { name: 'subnet_id', label: 'Subnet id (vpc)', type: 'number' },
                ]}
                submitLabel="Add interface"
                onSubmit={async (v) => {
                  await post(`${path}/configs/${c.id}/interfaces`, v);
                  await client.invalidateQueries();
                }}
              />
            </Disclosure>
          ) : null}
        </Section>
      ))}
      {writable ? (
        <Disclosure label="Add a configuration">
          <Form
            fields={[
              { name: 'label', label: 'Label', required: true },
              { name: 'kernel', label: 'Kernel', initial: 'compute/grub2' },
              {
                name: 'devices',
                label: 'Devices (JSON)',
                type: 'json',
                placeholder: '{"sda": {"disk_id": 1}}',
              },
            ]}
            submitLabel="Add configuration"
            onSubmit={async (v) => {
              await post(`${path}/configs`, v);
              await client.invalidateQueries();
            }}
          />
        </Disclosure>
      ) : null}
    </>
  );
}

interface Backup {
  id: number;
  label: string | null;
  type: string;
  status: string;
  created: string;
  finished: string | null;
}

function Backups({ i, path, writable }: { i: Instance; path: string; writable: boolean }) {
  const client = useQueryClient();
  const q = useQuery({
    queryKey: [`${path}/backups`],
    queryFn: () =>
      get<{
        automatic: Backup[];
        snapshot: { current: Backup | null; in_progress: Backup | null };
      }>(`${path}/backups`),
  });
  const refresh = () => client.invalidateQueries();
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data) return <Loading />;
  const rows = [
    ...q.data.automatic,
    ...(q.data.snapshot.current ? [q.data.snapshot.current] : []),
    ...(q.data.snapshot.in_progress ? [q.data.snapshot.in_progress] : []),
  ];
  return (
    <Section
      title="Backups and snapshots"
      actions={
        writable ? (
          i.backups.enabled ? (
            <ActionButton
              label="Cancel backups"
              secondary
              confirm="Cancel backups? Existing backups are removed."
              run={async () => {
                await post(`${path}/backups/cancel`);
                await refresh();
              }}
            />
          ) : (
            <ActionButton
              label="Enable backups"
              run={async () => {
                await post(`${path}/backups/enable`);
                await refresh();
              }}
            />
          )
        ) : null
      }
    >
      <Table
        caption="Backups"
        rows={rows}
        rowKey={(r) => r.id}
        columns={[
          { key: 'id', label: 'Id' },
          { key: 'label', label: 'Label' },
          { key: 'type', label: 'Type' },
          { key: 'status', label: 'Status', render: (r) => <Status value={r.status} /> },
          { key: 'created', label: 'Created' },
          ...(writable
            ? [
                {
                  key: 'x',
                  label: 'Restore',
                  render: (r: Backup) => (
                    <ActionButton
                      label="Restore here"
                      secondary
                      confirm="Restore this backup over the instance's disks?"
                      run={async () => {
                        await post(`${path}/backups/${r.id}/restore`, {
                          compute_id: i.id,
                          overwrite: true,
                        });
                        await refresh();
                      }}
                    />
                  ),
                },
              ]
            : []),
        ]}
      />
      {writable && i.backups.enabled ? (
        <Disclosure label="Take a snapshot">
          <Form
            fields={[{ name: 'label', label: 'Label', required: true }]}
            submitLabel="Take snapshot"
            onSubmit={async (v) => {
              await post(`${path}/backups`, v);
              await refresh();
            }}
          />
        </Disclosure>
      ) : null}
    </Section>
  );
}

function Operations({ i, path, writable }: { i: Instance; path: string; writable: boolean }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const types = useTypes();
  const regions = useRegions();
  const images = useImages();
  const refresh = () => client.invalidateQueries();
  if (!writable) return <p>You have read-only access to this instance.</p>;
  return (
    <>
      <Section title="Label and tags">
        <Form
          fields={[
            { name: 'label', label: 'Label', initial: i.label },
            {
              name: 'tags',
              label: 'Tags (comma separated)',
              type: 'list',
              initial: i.tags.join(', '),
            },
          ]}
          submitLabel="Save"
          onSubmit={async (v) => {
            await put(path, { tags: [], ...v });
            await refresh();
          }}
        />
      </Section>
      <Disclosure label="Resize">
        <Form
          fields={[
            { name: 'type', label: 'New plan', type: 'select', options: types, required: true },
            {
              name: 'allow_auto_disk_resize',
              label: 'Grow the disk with the plan',
              type: 'checkbox',
              initial: true,
            },
          ]}
          submitLabel="Resize"
          onSubmit={async (v) => {
            await post(`${path}/resize`, v);
            await refresh();
          }}
        />
      </Disclosure>
      <Disclosure label="Rebuild">
        <Form
          fields={[
            { name: 'image', label: 'Image', type: 'select', options: images, required: true },
            { name: 'root_pass', label: 'Root password', type: 'password', required: true },
            { name: 'authorized_keys', label: 'SSH keys (one a line)', type: 'list' },
          ]}
          submitLabel="Rebuild"
          danger
          onSubmit={async (v) => {
            await post(`${path}/rebuild`, v);
            await refresh();
          }}
        />
      </Disclosure>
      <Disclosure label="Rescue">
        <Form
          fields={[
            {
              name: 'devices',
              label: 'Devices (JSON, optional)',
              type: 'json',
              placeholder: '{"sda": {"disk_id": 1}}',
            },
          ]}
          submitLabel="Reboot into rescue mode"
          onSubmit={async (v) => {
            await post(`${path}/rescue`, v);
            await refresh();
          }}
        />
      </Disclosure>
      <Disclosure label="Clone">
        <Form
          fields={[
            { name: 'label', label: 'Label of the clone' },
            { name: 'region', label: 'Region', type: 'select', options: regions },
            { name: 'type', label: 'Plan', type: 'select', options: types },
          ]}
          submitLabel="Clone"
          onSubmit={async (v) => {
            const c = await post<Instance>(`${path}/clone`, v);
            await refresh();
            navigate(`/console/instances/${c.id}`);
          }}
        />
      </Disclosure>
      <Disclosure label="Migrate">
        <Form
          fields={[
            {
              name: 'region',
              label: 'To region (empty: another host)',
              type: 'select',
              options: regions,
            },
            {
              name: 'type',
              label: 'Kind',
              type: 'select',
              options: [
                { value: 'warm', label: 'warm' },
                { value: 'cold', label: 'cold' },
              ],
            },
          ]}
          submitLabel="Migrate"
          onSubmit={async (v) => {
            await post(`${path}/migrate`, v);
            await refresh();
          }}
        />
      </Disclosure>
      <Disclosure label="Reset root password">
        <Form
          fields={[
            { name: 'root_pass', label: 'New root password', type: 'password', required: true },
          ]}
          submitLabel="Reset password"
          onSubmit={(v) => post(`${path}/password`, v)}
        />
      </Disclosure>
    </>
  );
}
