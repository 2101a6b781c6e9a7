import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { Chart } from '../components/chart';
import { ActionButton, Disclosure, Form } from '../components/form';
import { ListView } from '../components/list';
import { Details, ErrorBox, Loading, Section, Status, Table } from '../components/ui';
import { useCan } from '../components/layout';
import { Locks } from '../components/locks';
import { all, del, get, type Page, post, put } from '../lib/api';
import { useImages } from '../lib/catalogue';
import { useServes } from '../lib/openapi';

import type { Instance } from './compute';
export function Summary({ i, path }: { i: Instance; path: string }) {
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
        <Details
          value={i as unknown as Record<string, unknown>}
          omit={['label', 'placement_group', 'locks']}
        />
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
      <PlacementAndLocks i={i} />
    </>
  );
}

/** The instance's placement group and resource locks (fields of the newer API). */
function PlacementAndLocks({ i }: { i: Instance }) {
  const n = i as Instance & {
    locks?: string[];
    placement_group?: { id: number; label: string; placement_group_type: string } | null;
  };
  return (
    <>
      {n.placement_group !== undefined ? (
        <Section title="Placement group">
          {n.placement_group ? (
            <p>
              <Link to={`/console/placement-groups/${n.placement_group.id}`}>
                {n.placement_group.label}
              </Link>{' '}
              ({n.placement_group.placement_group_type})
            </p>
          ) : (
            <p className="muted">
              In no placement group (<Link to="/console/placement-groups">placement groups</Link>).
            </p>
          )}
        </Section>
      ) : null}
      <Locks type="compute" id={i.id} label={i.label} locks={n.locks} />
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

export function Analytics({ path }: { path: string }) {
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
  reserved?: boolean;
}

export function Network({ path, writable }: { path: string; writable: boolean }) {
  const client = useQueryClient();
  const reserving = useReserving(writable);
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
            ...(reserving.served ? [{ key: 'reserved', label: 'Reserved' }] : []),
            ...(writable
              ? [
                  {
                    key: 'x',
                    label: 'Actions',
                    render: (r: Ip & { kind: string }) => (
                      <>
                        {r.kind.startsWith('ipv4 public') &&
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
                        ) : null}
                        {reserving.on && r.kind.startsWith('ipv4 public') ? (
                          <ActionButton
                            label={`${r.reserved ? 'Unreserve' : 'Reserve'} ${r.address}`}
                            secondary
                            run={async () => {
                              await put(`/networking/ips/${r.address}`, { reserved: !r.reserved });
                              await client.invalidateQueries();
                            }}
                          />
                        ) : null}
                      </>
                    ),
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
                ...(reserving.on
                  ? [
                      {
                        name: 'address',
                        label: 'One of the account’s reserved addresses (optional)',
                        type: 'select' as const,
                        options: reserving.unassigned,
                      },
                    ]
                  : []),
              ]}
              submitLabel="Add address"
              onSubmit={async (v) => {
                await post(`${path}/ips`, {
                  type: 'ipv4',
                  public: v.public,
                  ...(v.address ? { address: v.address } : {}),
                });
                await client.invalidateQueries();
              }}
            />
          </Disclosure>
        </>
      ) : null}
    </>
  );
}

/**
 * Reserved addresses on the Network tab: the column when the server serves them; reserving an
 * address, ending a reservation and adding one of the account's unassigned reserved addresses
 * for unrestricted users with write access (the API lets only them reserve).
 */
function useReserving(writable: boolean) {
  const can = useCan();
  const served = useServes()('/networking/reserved/ips');
  const on = served && writable && can.unrestricted;
  const q = useQuery({
    queryKey: ['/networking/reserved/ips', 'all'],
    enabled: on,
    queryFn: () =>
      all<{ address: string; region: string; assigned_entity: unknown }>(
        '/networking/reserved/ips',
      ),
  });
  const unassigned = (q.data ?? [])
    .filter((r) => r.assigned_entity === null)
    .map((r) => ({ value: r.address, label: `${r.address} (${r.region})` }));
  return { served, on, unassigned };
}

export function Storage({ i, path, writable }: { i: Instance; path: string; writable: boolean }) {
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

export function Configs({ i, path, writable }: { i: Instance; path: string; writable: boolean }) {
  // A new-generation instance's profiles have no interfaces: its own are on their tab.
  const legacy = i.interface_generation !== 'compute';
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
          {writable && legacy ? (
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

export function Backups({ i, path, writable }: { i: Instance; path: string; writable: boolean }) {
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
